# ksched's image built from source with Docker (a Docker engine that can
# pull debian:12):
#   docker build -t ksched:0.1.0 .
# Without Docker or a registry, `make image` (scripts/image.sh) builds the
# same image from build/ksched with podman over a debootstrapped base.
FROM debian:12 AS build
COPY scripts/install-deps.sh /src/scripts/install-deps.sh
RUN bash /src/scripts/install-deps.sh --no-image
COPY . /src
WORKDIR /src
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DKSCHED_BUILD_TESTS=OFF -DKSCHED_BUILD_BENCH=OFF \
 && cmake --build /build --target ksched \
 && strip /build/ksched \
 && bash scripts/image-rootfs.sh /build/ksched /rootfs

# As scripts/Containerfile: the binary, the shared objects ldd resolves for
# it, the CA bundle, passwd/group; no shell, no package manager.
FROM scratch
LABEL org.opencontainers.image.title=ksched
COPY --from=build /rootfs/ /
# The Deployment runs it as 65532 with a read-only root filesystem: ksched
# writes no files (its self-signed serving certificate lives in memory).
USER 65532:65532
EXPOSE 10259
ENTRYPOINT ["/usr/local/bin/ksched"]
