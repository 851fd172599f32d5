# Placeholder: the multi-stage image (bookworm builder, bookworm-slim runtime) arrives with the deploy issue.
FROM debian:bookworm-slim
