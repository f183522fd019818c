# syntax=docker/dockerfile:1
#
# Quarry in one image: a static Go binary on Debian slim with the system
# Chromium, fonts and tini. Build and run with docker-compose.yml beside it
# (Postgres included), or alone with DATABASE_URL pointing at your Postgres:
#
#   docker build --build-arg VERSION="$(git describe --always)" -t quarry .
#   docker run --rm -p 127.0.0.1:8080:8080 --shm-size=1g \
#       -e DATABASE_URL='postgres://…' quarry
#
# Not built in this project's CI: no Docker engine runs on the development
# machine (see README).

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/quarry ./cmd/quarry

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium \
      poppler-utils \
      wordnet-base \
      fonts-liberation \
      fonts-noto-core \
      ca-certificates \
      tini \
      wget \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --create-home --home-dir /home/quarry --shell /usr/sbin/nologin quarry
COPY --from=build /out/quarry /usr/local/bin/quarry

ENV QUARRY_ADDR=0.0.0.0:8080 \
    QUARRY_AUTH=none \
    QUARRY_CHROMIUM=/usr/bin/chromium
USER quarry
WORKDIR /home/quarry
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD wget -q -O /dev/null http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["tini", "--", "quarry"]
CMD ["serve"]
