# Build stage: a static binary (CGO_ENABLED=0: no C library, so it runs on an empty image).
# The base is pinned to an exact release, but not yet to its digest (a tag can be moved, a
# digest not): no digest has been looked up for this file. Before building for
# production, look it up and pin it, keeping the tag beside it (docs/OPERATIONS.md, Docker):
#   docker buildx imagetools inspect golang:1.26.8-bookworm --format '{{json .Manifest.Digest}}'
#   FROM golang:1.26.8-bookworm@sha256:<that digest> AS build
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
# .dockerignore keeps ./data (the host key, the database) and binaries out of this copy.
COPY . .
# The build is sent no .git, so the binary cannot read its commit: give it its version
# with --build-arg VERSION=$(git describe --always --dirty); without, it says "devel".
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -X main.stampedVersion=${VERSION}" -o /out/orthanc-ssh ./cmd/orthanc-ssh
# What the empty runtime image needs besides the binary: a user (uid 10001, as earlier
# images had, so existing volumes keep their owner) and its data folder, mode 0700.
RUN mkdir -p /out/etc /out/data \
    && echo 'orthanc:x:10001:10001:orthanc:/data:/sbin/nologin' > /out/etc/passwd \
    && echo 'orthanc:x:10001:' > /out/etc/group \
    && chown 10001:10001 /out/data && chmod 700 /out/data

# Run stage: nothing but the binary, the user and /data (about 36 MB, the binary's size; no shell).
FROM scratch
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build /out/orthanc-ssh /usr/local/bin/orthanc-ssh
COPY --from=build --chown=10001:10001 /out/data /data
ENV ORTHANC_DATA=/data ORTHANC_ADDR=:2222
VOLUME /data
# The web page (who is on, the hall of fame, how to connect, the host key's fingerprint)
# is off unless ORTHANC_HTTP_ADDR is set; ORTHANC_PUBLIC_ADDR says where players connect:
#   docker run -p 2222:2222 -p 8080:8080 -e ORTHANC_HTTP_ADDR=:8080 \
#     -e ORTHANC_PUBLIC_ADDR=play.example.org:2222 -v orthanc:/data orthanc-ssh
EXPOSE 2222 8080
USER 10001:10001
# health dials ORTHANC_ADDR's port and reads the SSH version line: set the listen address
# with ORTHANC_ADDR (not -addr after the image name) so the check dials the same port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/orthanc-ssh", "health"]
ENTRYPOINT ["/usr/local/bin/orthanc-ssh"]
