# The kind node image of scripts/setup-kind.sh, assembled from Debian packages and
# binaries built from the Go module proxy, where kind's own `build node-image` cannot
# run (it pulls images and clones sources). The layout is what a kindest/node image
# holds: systemd as init behind kind's entrypoint, containerd + runc, the kubelet
# units, kubeadm/kubelet/kubectl in /usr/bin, /kind/version, /kind/manifests.
# Build context (made by setup-kind.sh): kind-base/ = kind's images/base/files from
# its Go module, node/ = scripts/kind/node (ours, overriding), bin/ = the binaries.
# The control-plane images are imported into containerd afterwards (setup-kind.sh:
# they need a running containerd, so a privileged container and `docker commit`).
ARG BASE_IMAGE=debian:12-slim
FROM ${BASE_IMAGE}
ARG KUBE_VERSION
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      systemd containerd runc containernetworking-plugins \
      conntrack iptables nftables iproute2 ethtool util-linux mount kmod \
      libseccomp2 pigz bash ca-certificates curl jq procps socat \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY kind-base/ /
COPY node/ /
COPY bin/kubeadm bin/kubelet bin/kubectl /usr/bin/
# Modes (the module cache is read-only), the trimmed systemd of a kind node (no
# getty, udev or tmpfiles set-up: the container runtime did that), and the OCI spec
# containerd starts pods from, with kind's hook for product_uuid/product_name.
RUN chmod -R a+rX,u+w /kind /etc/systemd/system /etc/containerd /etc/cni /etc/sysctl.d \
      /etc/default /etc/crictl.yaml \
 && chmod 0755 /usr/local/bin/entrypoint /kind/bin/*.sh /usr/bin/kubeadm /usr/bin/kubelet \
      /usr/bin/kubectl \
 && rm -f /usr/local/bin/clean-install \
 && find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete \
 && rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \
      /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/basic.target.wants/* \
      /lib/systemd/system/sockets.target.wants/*udev* \
      /lib/systemd/system/sockets.target.wants/*initctl* \
 && echo "ReadKMsg=no" >>/etc/systemd/journald.conf \
 && ln -sf /usr/lib/systemd/systemd /sbin/init \
 && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \
 && systemctl mask systemd-binfmt.service \
 && mkdir -p /etc/kubernetes/manifests /opt/cni \
 && ln -sfn /usr/lib/cni /opt/cni/bin \
 && ctr oci spec \
    | jq '.hooks.createContainer += [{"path": "/kind/bin/mount-product-files.sh"}] | del(.process.rlimits)' \
    >/etc/containerd/cri-base.json \
 && echo "$KUBE_VERSION" >/kind/version
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
