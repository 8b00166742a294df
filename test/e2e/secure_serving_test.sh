#!/usr/bin/env bash
# ksched's secure port on a real control plane, authenticated and
# authorized as kube-scheduler's is (delegated to the API server):
#   no token -> 401; a token whose ServiceAccount may not get /metrics ->
#   403; Prometheus' ServiceAccount (bound to ksched-metrics-reader by
#   manifests/01-rbac.yaml) -> 200 with the metrics, but 403 on /configz;
#   /healthz /readyz /livez open; a client certificate of the cluster CA
#   (looked up in kube-system/extension-apiserver-authentication) in
#   system:masters -> 200 on /configz.
# ksched runs as its own ServiceAccount (manifests' RBAC) with a token from
# `kubectl create token`.
# Then a second ksched with --tls-cert-file/--tls-private-key-file,
# --client-ca-file and --requestheader-* of our own (openssl CLI):
#   a front proxy's certificate names the user in X-Remote-User /
#   X-Remote-Group, authorized by the API server (SubjectAccessReview) as
#   that user; the same headers without it are ignored;
#   the certificate files and the client CA are replaced under the running
#   process: `openssl s_client` sees the new serial (at once through
#   inotify, at the latest after the 1 min re-read) while scrapes with a
#   client certificate keep succeeding.
#
# Usage: secure_serving_test.sh KSCHED_BINARY. Control plane: as
# rbac_can_i_test.sh (lib.sh's k8s_up); exits 77 without one.
set -euo pipefail

KSCHED="${1:?usage: secure_serving_test.sh KSCHED_BINARY}"
WORK="$(mktemp -d)"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
for tool in curl openssl; do command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }; done
k8s_with_ksched_rbac
kc create namespace monitoring >/dev/null
kc create serviceaccount prometheus-k8s -n monitoring >/dev/null
kc create namespace e2e-other >/dev/null
kc create serviceaccount nobody -n e2e-other >/dev/null
KSCHED_TOKEN="$(kc create token ksched -n ksched-system --duration=1h)"
PROM_TOKEN="$(kc create token prometheus-k8s -n monitoring --duration=1h)"
NOBODY_TOKEN="$(kc create token nobody -n e2e-other --duration=1h)"

# ksched's kubeconfig: its ServiceAccount token, the cluster CA.
token_kubeconfig "$WORK/ksched.kubeconfig" "$KSCHED_TOKEN"

PORT="$(free_port)"
"$KSCHED" --kubeconfig "$WORK/ksched.kubeconfig" --leader-elect=false --bind-address=127.0.0.1 \
  --secure-port="$PORT" --v=2 >"$WORK/ksched.log" 2>&1 &
KSCHED_PID=$!
BASE="https://127.0.0.1:$PORT"

# code PATH [curl args]: the HTTP status of GET PATH (000 on no answer).
code() {
  local path="$1"
  shift
  curl -sk -o "$WORK/body" -w '%{http_code}' --max-time 5 "$@" "$BASE$path" || true
}
expect_code() {
  local want="$1" path="$2"
  shift 2
  local got
  got="$(code "$path" "$@")"
  [ "$got" = "$want" ] || { echo "GET $path: $got, want $want"; head -c 300 "$WORK/body"; return 1; }
}

if ! wait_for 30 expect_code 200 /livez; then
  echo "ksched did not serve /livez:"
  tail -30 "$WORK/ksched.log"
  exit 1
fi
check "/readyz open once synced" wait_for 30 expect_code 200 /readyz
for p in /healthz /livez; do check "$p open without a token" expect_code 200 "$p"; done
check "no token: 401 on /metrics" expect_code 401 /metrics
check "no token: 401 on /configz" expect_code 401 /configz
check "no token: 401 on /debug/pending" expect_code 401 /debug/pending
check "invalid token: 401" expect_code 401 /metrics -H "Authorization: Bearer not-a-token"
check "token without get /metrics: 403" expect_code 403 /metrics -H "Authorization: Bearer $NOBODY_TOKEN"
metrics_ok() {
  expect_code 200 /metrics -H "Authorization: Bearer $PROM_TOKEN"
  grep -q "^scheduler_pending_pods" "$WORK/body"
}
check "ksched-metrics-reader token: 200 with metrics" metrics_ok
check "ksched-metrics-reader token: 403 on /configz" expect_code 403 /configz -H "Authorization: Bearer $PROM_TOKEN"

# The admin client certificate (system:masters), verified against the
# cluster CA that ksched read from extension-apiserver-authentication.
# The admin kubeconfig holds the certificate inline or as file paths.
kc config view --raw -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$WORK/admin.crt"
kc config view --raw -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$WORK/admin.key"
if [ ! -s "$WORK/admin.crt" ]; then
  cp "$(kc config view --raw -o jsonpath='{.users[0].user.client-certificate}')" "$WORK/admin.crt" || true
  cp "$(kc config view --raw -o jsonpath='{.users[0].user.client-key}')" "$WORK/admin.key" || true
fi
if [ -s "$WORK/admin.crt" ]; then
  check "system:masters client certificate: 200 on /configz" \
    expect_code 200 /configz --cert "$WORK/admin.crt" --key "$WORK/admin.key"
fi
check "ksched logged the client CA lookup" grep -q "client certificates are verified against" "$WORK/ksched.log"
check "ksched still running" kill -0 "$KSCHED_PID"
kill "$KSCHED_PID"
wait "$KSCHED_PID" || true
KSCHED_PID=""

# --- Files of our own: front proxy, and reloading under a running ksched.
C="$WORK/certs"
mkdir -p "$C"
(
  cd "$C"
  EC="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
  printf 'extendedKeyUsage=clientAuth\n' >client.ext
  sign() { # CA NAME SUBJECT
    openssl req $EC -keyout "$2.key" -out "$2.csr" -subj "$3"
    openssl x509 -req -in "$2.csr" -CA "$1.crt" -CAkey "$1.key" -CAcreateserial -days 1 -extfile client.ext -out "$2.crt"
  }
  for ca in ca1 ca2 proxy-ca; do openssl req -x509 $EC -keyout $ca.key -out $ca.crt -subj "/CN=e2e-$ca" -days 1; done
  sign ca1 admin1 "/O=system:masters/CN=e2e-admin1"
  sign ca2 admin2 "/O=system:masters/CN=e2e-admin2"
  sign proxy-ca proxy "/CN=front-proxy-client"
  sign proxy-ca other-proxy "/CN=not-allowed"
  for serial in 1001 2002; do
    openssl req -x509 $EC -keyout "s$serial.key" -out "s$serial.crt" -subj /CN=localhost \
      -addext subjectAltName=IP:127.0.0.1 -set_serial "0x$serial" -days 1
  done
  cp s1001.crt tls.crt && cp s1001.key tls.key && cp ca1.crt client-ca.crt
) >"$WORK/openssl.log" 2>&1

PORT="$(free_port)"
"$KSCHED" --kubeconfig "$WORK/ksched.kubeconfig" --leader-elect=false --bind-address=127.0.0.1 \
  --secure-port="$PORT" --v=2 --tls-cert-file "$C/tls.crt" --tls-private-key-file "$C/tls.key" \
  --client-ca-file "$C/client-ca.crt" --requestheader-client-ca-file "$C/proxy-ca.crt" \
  --requestheader-allowed-names front-proxy-client >"$WORK/ksched2.log" 2>&1 &
KSCHED_PID=$!
BASE="https://127.0.0.1:$PORT"
if ! wait_for 30 expect_code 200 /livez; then
  echo "the second ksched did not serve /livez:"
  tail -30 "$WORK/ksched2.log"
  exit 1
fi
serial() { openssl s_client -connect "127.0.0.1:$PORT" </dev/null 2>/dev/null | openssl x509 -noout -serial; }
serial_is() { [ "$(serial)" = "serial=$1" ]; }
check "serves --tls-cert-file (serial 1001)" serial_is 1001
PROXY=(--cert "$C/proxy.crt" --key "$C/proxy.key")
PROM_USER="system:serviceaccount:monitoring:prometheus-k8s"
check "front proxy as Prometheus' user: 200 on /metrics" \
  expect_code 200 /metrics "${PROXY[@]}" -H "X-Remote-User: $PROM_USER"
check "front proxy as Prometheus' user: 403 on /configz" \
  expect_code 403 /configz "${PROXY[@]}" -H "X-Remote-User: $PROM_USER"
check "front proxy with group system:masters: 200 on /configz" \
  expect_code 200 /configz "${PROXY[@]}" -H "X-Remote-User: someone" -H "X-Remote-Group: system:masters"
check "front proxy without a user header: 401" expect_code 401 /metrics "${PROXY[@]}"
check "proxy CN not in --requestheader-allowed-names: 401" \
  expect_code 401 /metrics --cert "$C/other-proxy.crt" --key "$C/other-proxy.key" -H "X-Remote-User: $PROM_USER"
check "user headers without a proxy certificate: ignored (401)" \
  expect_code 401 /configz -H "X-Remote-User: someone" -H "X-Remote-Group: system:masters"
check "user headers next to a token: ignored (403)" \
  expect_code 403 /configz -H "Authorization: Bearer $PROM_TOKEN" -H "X-Remote-Group: system:masters"
ADMIN1=(--cert "$C/admin1.crt" --key "$C/admin1.key")
ADMIN2=(--cert "$C/admin2.crt" --key "$C/admin2.key")
check "--client-ca-file certificate: 200 on /configz" expect_code 200 /configz "${ADMIN1[@]}"
check "certificate of a CA not yet trusted: 401" expect_code 401 /configz "${ADMIN2[@]}"

# Scrapes (a new connection each) all along the replacement.
(
  while :; do
    curl -sk -o /dev/null -w '%{http_code}\n' --max-time 5 "${ADMIN1[@]}" "$BASE/metrics" >>"$WORK/scrapes" || true
    sleep 0.2
  done
) &
EXTRA_PID=$!
lines_at_least() { [ "$(wc -l <"$WORK/scrapes" 2>/dev/null || echo 0)" -ge "$1" ]; }
wait_for 30 lines_at_least 5 || true
# Replaced as a Secret volume update does: each file in one rename.
cat "$C/ca1.crt" "$C/ca2.crt" >"$C/client-ca.new" && mv "$C/client-ca.new" "$C/client-ca.crt"
cp "$C/s2002.key" "$C/tls.key.new" && cp "$C/s2002.crt" "$C/tls.crt.new"
mv "$C/tls.key.new" "$C/tls.key" && mv "$C/tls.crt.new" "$C/tls.crt"
RELOAD_START=$SECONDS
check "new certificate served within the reload period (serial 2002)" wait_for 75 serial_is 2002
echo "     (after $((SECONDS - RELOAD_START)) s)"
check "new client CA trusted: 200 on /configz" wait_for 5 expect_code 200 /configz "${ADMIN2[@]}"
AFTER="$(($(wc -l <"$WORK/scrapes") + 5))"
wait_for 30 lines_at_least "$AFTER" || true
kill "$EXTRA_PID"
wait "$EXTRA_PID" 2>/dev/null || true
EXTRA_PID=""
scrapes_ok() {
  local total bad
  total="$(wc -l <"$WORK/scrapes")"
  bad="$(grep -vc '^200$' "$WORK/scrapes" || true)"
  echo "$total scrapes, $bad not 200"
  ((total >= 10 && bad == 0))
}
check "every scrape during the replacement answered 200" scrapes_ok
echo "     ($(wc -l <"$WORK/scrapes") scrapes)"
check "ksched logged the reload" grep -q "serving certificate reloaded" "$WORK/ksched2.log"
check "second ksched still running" kill -0 "$KSCHED_PID"

echo "secure_serving: $PASSED passed, $FAILED failed"
((FAILED == 0))
