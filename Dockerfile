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
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake --preset default -DNETSCORE_BUILD_TESTS=OFF -DNETSCORE_BUILD_BENCH=OFF \
 && cmake --build --preset default --target netscore-collector netscore-extender \
 && install -D -s -m 0755 build/default/collector/netscore-collector /out/netscore-collector \
 && install -D -s -m 0755 build/default/extender/netscore-extender /out/netscore-extender

FROM debian:bookworm-slim
# Every package owning a library the binaries load (ldd, transitively), listed so
# tests/deploy/check_runtime_libs.py can verify the list is complete and nothing more: the C++
# runtime and spdlog (both), then libcurl4 and what it links (the collector).
# ca-certificates: the collector verifies https Prometheus endpoints against the system CAs.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libc6 libgcc-s1 libstdc++6 libfmt9 libspdlog1.10 \
      libcurl4 libbrotli1 libcom-err2 libffi8 libgmp10 libgnutls30 libgssapi-krb5-2 libhogweed6 \
      libidn2-0 libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libldap-2.5-0 libnettle8 \
      libnghttp2-14 libp11-kit0 libpsl5 librtmp1 libsasl2-2 libssh2-1 libssl3 libtasn1-6 \
      libunistring2 libzstd1 zlib1g \
      ca-certificates \
 && apt-get clean \
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
