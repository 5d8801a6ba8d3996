# The demo health endpoints of the kind e2e (demo.yaml): scripts/demo_backends.py on
# Debian's python3, built by run.sh from the repository root like the Ax images
# (BASE_IMAGE as in docker/Dockerfile), so the test needs no image from a registry.
ARG BASE_IMAGE=debian:12-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/*
COPY scripts/demo_backends.py /app/demo_backends.py
USER 65532:65532
ENTRYPOINT ["python3", "/app/demo_backends.py"]
