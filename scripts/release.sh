#!/usr/bin/env bash
# Builds the release archives and checksums file exactly as .goreleaser.yaml
# names them, so that a release can be built, and the action's installer
# tested against it, without goreleaser. `make release VERSION=v1.2.3`.
#
# Environment: VERSION (required, a tag such as v1.2.3), DIST (output
# directory, default dist), PLATFORMS (GOOS/GOARCH list), GO.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:?set VERSION to the release tag, e.g. VERSION=v1.2.3}
dist=${DIST:-dist}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
go=${GO:-go}
number=${version#v} # goreleaser's .Version: the tag without its "v"

# Windows archives are zips: without zip the build would fail after the
# other platforms', minutes in.
case " $platforms " in
  *" windows/"*)
    if ! command -v zip >/dev/null; then
      echo "release.sh: zip is not installed, and the windows archives need it (apt-get install zip); or leave windows out of PLATFORMS" >&2
      exit 1
    fi
    ;;
esac

rm -rf "$dist"
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

for platform in $platforms; do
  os=${platform%/*}
  arch=${platform#*/}
  name="modellint_${number}_${os}_${arch}"
  # modellint and modellint-helm, its Helm renderer, which it finds beside it.
  binary=modellint
  renderer=modellint-helm
  if [ "$os" = windows ]; then
    binary=modellint.exe
    renderer=modellint-helm.exe
  fi
  mkdir -p "$stage/$name"
  echo "build $name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$stage/$name/" ./cmd/modellint ./cmd/modellint-helm
  cp README.md "$stage/$name/"
  # Fixed times (zip cannot store years before 1980), owners and order:
  # the same commit gives the same bytes.
  TZ=UTC touch -d '1980-01-02 00:00:00' "$stage/$name/$binary" "$stage/$name/$renderer" "$stage/$name/README.md"
  if [ "$os" = windows ]; then
    (cd "$stage/$name" && TZ=UTC zip -q -X "$dist/$name.zip" "$binary" "$renderer" README.md)
  else
    tar --sort=name --owner=0 --group=0 --numeric-owner \
      -C "$stage/$name" -cf - "$binary" "$renderer" README.md | gzip -n -9 >"$dist/$name.tar.gz"
  fi
done

(cd "$dist" && find . -maxdepth 1 \( -name '*.tar.gz' -o -name '*.zip' \) -printf '%f\n' | LC_ALL=C sort |
  xargs sha256sum --) >"$dist/modellint_${number}_checksums.txt"
echo "wrote $dist/modellint_${number}_checksums.txt"
