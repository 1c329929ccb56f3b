#!/usr/bin/python3
"""Browses multicast DNS for `_twinstar._tcp` with python-zeroconf (Debian's
python3-zeroconf: a client nobody here wrote) and prints the first
announcement it resolves as one JSON object: instance, addresses, port and
the TXT record. Exit 1 when none comes within the timeout.

    zeroconf_browse.py [TIMEOUT_S]
"""

import json
import socket
import sys
import threading

from zeroconf import ServiceBrowser, Zeroconf

SERVICE = "_twinstar._tcp.local."


def main() -> int:
    timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    zc = Zeroconf()
    found = {}
    done = threading.Event()

    class Listener:
        def add_service(self, zc, type_, name):
            info = zc.get_service_info(type_, name, timeout=3000)
            if info is None or done.is_set():
                return
            found.update(
                instance=name,
                addresses=[socket.inet_ntoa(a) for a in info.addresses if len(a) == 4],
                port=info.port,
                txt={k.decode(): (v or b"").decode() for k, v in info.properties.items()},
            )
            done.set()

        def update_service(self, zc, type_, name):
            self.add_service(zc, type_, name)

        def remove_service(self, zc, type_, name):
            pass

    ServiceBrowser(zc, SERVICE, Listener())
    ok = done.wait(timeout)
    zc.close()
    if not ok:
        print(f"zeroconf_browse: no {SERVICE} announcement in {timeout} s", file=sys.stderr)
        return 1
    print(json.dumps(found, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
