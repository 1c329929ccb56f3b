#!/usr/bin/env python3
"""Asks a TURN server for a relay allocation with a long-term credential,
the way a WebRTC stack does (RFC 5766 Allocate, RFC 5389 long-term
credentials), and says whether the server took it:

    turn_allocate.py [--from LOCAL_PORT] HOST PORT [--permit PEER_IP] USERNAME PASSWORD
    turn_allocate.py [--from LOCAL_PORT] HOST PORT [--permit PEER_IP] --rest SECRET NAME EXPIRY

prints "allocated" (exit 0), "refused CODE REASON" (exit 3) or
"no answer" (exit 1). With --permit, once allocated it asks for a
permission to relay to PEER_IP (RFC 5766 CreatePermission), as a player's
stack does before sending to its partner, and prints "allocated, permitted"
(exit 0) or "allocated, refused CODE REASON" (exit 3): a relay that denies
private peers answers 403 for one. With TURN REST credentials (coturn's
use-auth-secret), USERNAME is "EXPIRY:NAME" and PASSWORD
base64(HMAC-SHA1(secret, USERNAME)); `--rest SECRET NAME EXPIRY` computes
them instead of USERNAME and PASSWORD.

Used by scripts/nat-testbed.sh --internet to show that coturn refuses a
forged or expired credential and takes the ones twinstar serve mints.
`--from` sends from that local port: each check needs a 5-tuple of its own,
since a TURN server answers a new credential on a 5-tuple it already knows
with 437 (Allocation Mismatch), and two checks in a row from ephemeral
ports sometimes got the same port, and behind the NAT the same mapping.
"""
import base64
import hashlib
import hmac
import os
import socket
import struct
import sys

MAGIC = 0x2112A442
ALLOCATE, ALLOCATE_OK, ALLOCATE_ERR = 0x0003, 0x0103, 0x0113
USERNAME, MESSAGE_INTEGRITY, ERROR_CODE = 0x0006, 0x0008, 0x0009
REALM, NONCE, REQUESTED_TRANSPORT = 0x0014, 0x0015, 0x0019
CREATE_PERMISSION, CREATE_PERMISSION_OK = 0x0008, 0x0108
XOR_PEER_ADDRESS = 0x0012


def attr(kind, value):
    pad = (4 - len(value) % 4) % 4
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * pad


def message(kind, tid, attrs, key=None):
    body = b"".join(attrs)
    if key is not None:
        # The length covers the MESSAGE-INTEGRITY attribute (24 bytes).
        header = struct.pack("!HHI", kind, len(body) + 24, MAGIC) + tid
        mac = hmac.new(key, header + body, hashlib.sha1).digest()
        body += attr(MESSAGE_INTEGRITY, mac)
    return struct.pack("!HHI", kind, len(body), MAGIC) + tid + body


def parse(data):
    kind, length, _magic = struct.unpack("!HHI", data[:8])
    attrs, at = {}, 20
    while at + 4 <= 20 + length:
        k, n = struct.unpack("!HH", data[at:at + 4])
        attrs[k] = data[at + 4:at + 4 + n]
        at += 4 + n + (4 - n % 4) % 4
    return kind, attrs


def error_of(attrs):
    raw = attrs.get(ERROR_CODE, b"\0\0\0\0")
    return raw[2] * 100 + raw[3], raw[4:].decode("utf-8", "replace")


def xor_peer_address(ip):
    """XOR-PEER-ADDRESS for an IPv4 address (the port does not matter to a
    permission)."""
    packed = socket.inet_aton(ip)
    magic = struct.pack("!I", MAGIC)
    address = bytes(a ^ b for a, b in zip(packed, magic))
    return attr(XOR_PEER_ADDRESS, struct.pack("!BBH", 0, 1, 0 ^ (MAGIC >> 16)) + address)


def exchange(sock, packet):
    sock.send(packet)
    return parse(sock.recv(2048))


def main(argv):
    local_port = 0
    if len(argv) >= 2 and argv[0] == "--from":
        if not argv[1].isdigit() or not 0 < int(argv[1]) < 65536:
            print(f"turn_allocate.py: --from takes a port, not {argv[1]!r}", file=sys.stderr)
            return 2
        local_port, argv = int(argv[1]), argv[2:]
    permit = None
    if "--permit" in argv:
        at = argv.index("--permit")
        permit = argv[at + 1] if at + 1 < len(argv) else ""
        try:
            socket.inet_aton(permit)
        except OSError:
            print(f"turn_allocate.py: --permit takes an IPv4 address, not {permit!r}", file=sys.stderr)
            return 2
        argv = argv[:at] + argv[at + 2:]
    if len(argv) == 6 and argv[2] == "--rest":
        host, port = argv[0], int(argv[1])
        secret, name, expiry = argv[3], argv[4], argv[5]
        user = f"{expiry}:{name}"
        password = base64.b64encode(
            hmac.new(secret.encode(), user.encode(), hashlib.sha1).digest()).decode()
    elif len(argv) == 4:
        host, port, user, password = argv[0], int(argv[1]), argv[2], argv[3]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    transport = attr(REQUESTED_TRANSPORT, bytes([17, 0, 0, 0]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(3)
    sock.bind(("0.0.0.0", local_port))
    sock.connect((host, port))
    try:
        kind, attrs = exchange(sock, message(ALLOCATE, os.urandom(12), [transport]))
        if kind != ALLOCATE_ERR or REALM not in attrs or NONCE not in attrs:
            print(f"refused {error_of(attrs)[0]} no challenge")
            return 3
        realm, nonce = attrs[REALM], attrs[NONCE]
        key = hashlib.md5(user.encode() + b":" + realm + b":" + password.encode()).digest()
        kind, attrs = exchange(sock, message(ALLOCATE, os.urandom(12), [
            attr(USERNAME, user.encode()), attr(REALM, realm), attr(NONCE, nonce), transport,
        ], key))
    except socket.timeout:
        print("no answer")
        return 1
    if kind == ALLOCATE_OK and permit is None:
        print("allocated")
        return 0
    if kind == ALLOCATE_OK:
        try:
            kind, attrs = exchange(sock, message(CREATE_PERMISSION, os.urandom(12), [
                xor_peer_address(permit), attr(USERNAME, user.encode()), attr(REALM, realm),
                attr(NONCE, nonce),
            ], key))
        except socket.timeout:
            print("allocated, no answer to the permission")
            return 1
        if kind == CREATE_PERMISSION_OK:
            print("allocated, permitted")
            return 0
        code, reason = error_of(attrs)
        print(f"allocated, refused {code} {reason}")
        return 3
    code, reason = error_of(attrs)
    print(f"refused {code} {reason}")
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
