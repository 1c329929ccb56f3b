# podman as it runs on these machines (../shared/notes/ENVIRONMENT.md,
# "Containers"): crun and the systemd cgroup manager fail here, so runc and
# cgroupfs, and containers need explicit limits (the defaults fail on the
# host's rlimits). Podman's default bridge network works (ports published
# with -p); without systemd it logs that it cannot schedule health checks
# on a timer, and `podman healthcheck run` still runs one.
# shellcheck shell=bash

podman_cmd() {
    podman --runtime runc --cgroup-manager cgroupfs "$@"
}

# podman_run ARGS...: `podman run` with those flags first.
podman_run() {
    podman_cmd run --ulimit nofile=4096:4096 --ulimit nproc=1024:1024 "$@"
}
