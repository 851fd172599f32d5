# One image, both binaries: netscore-collector and netscore-extender (the default entrypoint).
# The pod runs the collector by overriding `command`; see deploy/base.
#
# The builder installs exactly scripts/install-deps.sh's build_packages, and the runtime stage
# only the shared libraries the binaries link (`ldd` + `dpkg -S`); both are checked by
# tests/deploy (check_dockerfile.py, check_runtime_libs.py), since no container engine runs in CI.

FROM debian:bookworm AS builder
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config \
      libboost-dev libcurl4-openssl-dev rapidjson-dev libspdlog-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake --preset default -DNETSCORE_BUILD_TESTS=OFF -DNETSCORE_BUILD_BENCH=OFF \
 && cmake --build --preset default --target netscore-collector netscore-extender \
 && install -D -s -m 0755 build/default/collector/netscore-collector /out/netscore-collector \
 && install -D -s -m 0755 build/default/extender/netscore-extender /out/netscore-extender

FROM debian:bookworm-slim
# ca-certificates: the collector verifies https Prometheus endpoints against the system CAs.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libc6 libgcc-s1 libstdc++6 libfmt9 libspdlog1.10 libcurl4 \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=builder /out/ /usr/local/bin/
LABEL org.opencontainers.image.title="netscore" \
      org.opencontainers.image.description="Network-traffic scores for kube-scheduler: collector and HTTP extender sharing a /dev/shm table" \
      org.opencontainers.image.documentation="README.md, deploy/" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
# Numeric so kubelet's runAsNonRoot check can verify it; both containers of the pod must run as
# the same UID because the collector creates the score table with mode 0600.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/netscore-extender"]
