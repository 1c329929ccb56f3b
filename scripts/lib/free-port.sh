# free_port: a TCP port on 127.0.0.1 that nothing holds now (bound and
# released; the caller binds it a moment later).
# shellcheck shell=bash

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
