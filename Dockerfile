# modellint on Debian slim. CI systems such as GitLab run job scripts with the
# image's shell, so the image has one (a distroless image would not).
#
#   docker build --build-arg VERSION=v1.2.3 -t modellint .
#   docker run --rm -v "$PWD:/work" modellint deploy/

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# modellint-helm, its Helm renderer, goes beside it.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/ ./cmd/modellint ./cmd/modellint-helm

FROM debian:bookworm-slim
# CA certificates, for images read from registries; ISA-L's igzip, which
# inflates gzip layers about 2× faster than the in-process decoder.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates isal \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/modellint /out/modellint-helm /usr/local/bin/
RUN useradd --create-home --uid 10001 modellint
# Not root. To write reports into a bind-mounted dir, run as its owner:
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" IMAGE -f sarif=modellint.sarif .
USER 10001
WORKDIR /work
ENTRYPOINT ["modellint"]
