#!/usr/bin/env bash
# A private CA and a server certificate signed by it, for tests only:
#
#   scripts/lib/make-test-certs.sh DIR IP [NAME]
#
# writes DIR/ca.pem (trust it with SSL_CERT_FILE=DIR/ca.pem) and
# DIR/NAME.pem + DIR/NAME.key (default NAME: server), a P-256 certificate
# for the IP address IP (subjectAltName), valid for two days. Running it
# again with another NAME signs another certificate with the same CA (a
# "renewal"). Needs openssl.
set -euo pipefail
dir="$1" ip="$2" name="${3:-server}"
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
if [ ! -s ca.pem ]; then
    openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 2 \
        -subj "/CN=twinstar test CA" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi
openssl req "${ec[@]}" -keyout "$name.key" -out "$name.csr" -subj "/CN=$ip" 2>/dev/null
printf '%s\n' "subjectAltName=IP:$ip" "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$name.ext"
openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 8)" \
    -out "$name.pem" -days 2 -extfile "$name.ext" 2>/dev/null
rm -f "$name.csr" "$name.ext"
