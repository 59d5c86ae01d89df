# Build stage: a static binary.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/orthanc-ssh ./cmd/orthanc-ssh

# Run stage: the binary and an unprivileged user; the database and host key live in /data.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data orthanc \
    && mkdir /data && chown orthanc /data && chmod 700 /data
COPY --from=build /out/orthanc-ssh /usr/local/bin/orthanc-ssh
ENV ORTHANC_DATA=/data ORTHANC_ADDR=:2222
VOLUME /data
# The web page (who is on, the hall of fame, how to connect, the host key's fingerprint)
# is off unless ORTHANC_HTTP_ADDR is set; ORTHANC_PUBLIC_ADDR says where players connect:
#   docker run -p 2222:2222 -p 8080:8080 -e ORTHANC_HTTP_ADDR=:8080 \
#     -e ORTHANC_PUBLIC_ADDR=play.example.org:2222 -v orthanc:/data orthanc-ssh
EXPOSE 2222 8080
USER orthanc
ENTRYPOINT ["orthanc-ssh"]
