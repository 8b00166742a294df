# Multi-stage build of ksched on Debian 12.
#   docker build -t ksched:0.1.0 .
FROM debian:12 AS build
COPY scripts/install-deps.sh /src/scripts/install-deps.sh
RUN bash /src/scripts/install-deps.sh
COPY . /src
WORKDIR /src
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DKSCHED_BUILD_TESTS=OFF -DKSCHED_BUILD_BENCH=OFF \
 && cmake --build /build --target ksched \
 && strip /build/ksched

# Runtime: only the shared libraries ksched links (`ldd ksched`: cpprest,
# which brings brotli and zlib, OpenSSL, yaml-cpp, spdlog, fmt,
# prometheus-cpp core) and the CA certificates for the API server.
FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates libcpprest2.10 libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 \
      libprometheus-cpp-core1.0 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 65532 --no-create-home --shell /usr/sbin/nologin ksched
COPY --from=build /build/ksched /usr/local/bin/ksched
# Non-root (manifests/03-deployment.yaml runs it as 65532 with a read-only
# root filesystem: ksched writes no files; its self-signed serving
# certificate lives in memory).
USER 65532:65532
EXPOSE 10259
ENTRYPOINT ["/usr/local/bin/ksched"]
