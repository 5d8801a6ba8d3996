# The control-plane images kubeadm deploys (`kubeadm config images list`), built by
# scripts/setup-kind.sh from binaries it built from the Go module proxy, on the local
# Debian base: nothing is pulled from a registry. One target per image; the build
# context is a folder with every binary and pause.c. The legacy builder (no BuildKit
# here) builds every stage before the target: pause comes first so that it needs
# no NAME.
ARG BASE_IMAGE=debian:12-slim

# The pod sandbox: Kubernetes' own pause.c (from the k8s.io/kubernetes module),
# compiled static, alone in the image.
FROM ${BASE_IMAGE} AS pause-build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev
COPY pause.c /pause.c
ARG PAUSE_VERSION
RUN gcc -Os -static -Wall -Werror -DVERSION=v${PAUSE_VERSION} -o /pause /pause.c && strip /pause

FROM scratch AS pause
COPY --from=pause-build /pause /pause
USER 65535:65535
ENTRYPOINT ["/pause"]

# kube-apiserver, kube-controller-manager, kube-scheduler, etcd: one static binary in
# /usr/local/bin (kubeadm's static pods call them by name).
FROM ${BASE_IMAGE} AS binary
ARG NAME
COPY ${NAME} /usr/local/bin/${NAME}
RUN chmod 0755 /usr/local/bin/${NAME}

# kube-proxy programs iptables and cleans conntrack entries.
FROM ${BASE_IMAGE} AS kube-proxy
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      iptables conntrack ipset kmod \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY kube-proxy /usr/local/bin/kube-proxy
RUN chmod 0755 /usr/local/bin/kube-proxy

# CoreDNS: kubeadm's Deployment passes only arguments (-conf ...), so the binary is the
# ENTRYPOINT, where the upstream image has it.
FROM ${BASE_IMAGE} AS coredns
COPY coredns /coredns
RUN chmod 0755 /coredns
ENTRYPOINT ["/coredns"]
