#!/usr/bin/env bash
# Installs modellint: the release binary for this machine, verified against
# the release's checksums file, or, when no release asset fits (a branch or
# commit, an unlisted platform), a build from source with the local Go.
# action.yml runs it; it also works on its own:
#
#   MODELLINT_VERSION=v1.2.3 bash scripts/install.sh
#
# Environment:
#   MODELLINT_VERSION       tag to install; empty means the action's own ref
#   MODELLINT_ACTION_REF    the action's ref (github.action_ref)
#   MODELLINT_SOURCE_DIR    a checkout of modellint at that ref (the action's
#                           directory), built from when no asset fits
#   MODELLINT_DOWNLOAD_URL  where releases are, default GitHub's releases of
#                           modellint/modellint; MODELLINT_DOWNLOAD_URL/TAG/FILE
#   MODELLINT_INSTALL_DIR   where the binary goes
#   GITHUB_PATH             if set, the install directory is appended to it
set -euo pipefail

module=github.com/modellint/modellint
download_url=${MODELLINT_DOWNLOAD_URL:-https://github.com/modellint/modellint/releases/download}
source_dir=${MODELLINT_SOURCE_DIR:-}
action_ref=${MODELLINT_ACTION_REF:-}
# github.action_ref is empty in some composite actions (actions/runner#2473);
# the runner checks an action out under _actions/OWNER/REPO/REF.
if [ -z "$action_ref" ] && [ -n "$source_dir" ]; then
  case "$source_dir" in
    */_actions/*/*/*) action_ref=$(basename "$source_dir") ;;
  esac
fi
version=${MODELLINT_VERSION:-$action_ref}

fail() {
  echo "modellint install: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
  *) os=unknown ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch=unknown ;;
esac
binary=modellint
renderer=modellint-helm # the Helm renderer modellint starts beside itself
archive_ext=tar.gz
if [ "$os" = windows ]; then
  binary=modellint.exe
  renderer=modellint-helm.exe
  archive_ext=zip
fi

install_dir=${MODELLINT_INSTALL_DIR:-${RUNNER_TOOL_CACHE:-${HOME}/.cache}/modellint/${version:-source}/${os}-${arch}}
mkdir -p "$install_dir"
install_dir=$(cd "$install_dir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# fetch URL FILE prints the HTTP status; curl fails only when no answer came.
fetch() {
  curl --silent --show-error --location --retry 3 --connect-timeout 20 \
    --output "$2" --write-out '%{http_code}' "$1"
}

# install_release succeeds after installing a verified binary, returns 3
# when the release has no asset for this machine, and exits on anything
# else: a checksum that does not match is never worked around.
install_release() {
  local number=${version#v}
  local checksums="modellint_${number}_checksums.txt"
  local asset="modellint_${number}_${os}_${arch}.${archive_ext}"
  local status expected actual
  if [ "$os" = unknown ] || [ "$arch" = unknown ]; then
    echo "modellint install: no release is built for $(uname -s)/$(uname -m)" >&2
    return 3
  fi
  status=$(fetch "$download_url/$version/$checksums" "$work/$checksums") ||
    fail "download $download_url/$version/$checksums failed"
  case "$status" in
    200) ;;
    404)
      echo "modellint install: $version has no release at $download_url" >&2
      return 3
      ;;
    *) fail "download $download_url/$version/$checksums: HTTP $status" ;;
  esac
  expected=$(awk -v asset="$asset" '$2 == asset || $2 == "*" asset { print $1 }' "$work/$checksums")
  if [ -z "$expected" ]; then
    echo "modellint install: release $version has no $asset" >&2
    return 3
  fi
  status=$(fetch "$download_url/$version/$asset" "$work/$asset") ||
    fail "download $download_url/$version/$asset failed"
  [ "$status" = 200 ] || fail "download $download_url/$version/$asset: HTTP $status"
  actual=$(sha256 "$work/$asset")
  if [ "$actual" != "$expected" ]; then
    fail "checksum mismatch for $asset: $checksums says $expected, the download is $actual; not installing it"
  fi
  # set -e does not apply inside a function called with ||, hence the
  # explicit checks.
  mkdir -p "$work/unpacked" || fail "cannot create $work/unpacked"
  # The whole archive: releases before the renderer have none.
  if [ "$archive_ext" = zip ]; then
    unzip -q -o "$work/$asset" -d "$work/unpacked" || fail "unpack $asset failed"
  else
    tar -xzf "$work/$asset" -C "$work/unpacked" || fail "unpack $asset failed"
  fi
  [ -f "$work/unpacked/$binary" ] || fail "$asset holds no $binary"
  install -m 0755 "$work/unpacked/$binary" "$install_dir/$binary" || fail "cannot install into $install_dir"
  if [ -f "$work/unpacked/$renderer" ]; then
    install -m 0755 "$work/unpacked/$renderer" "$install_dir/$renderer" || fail "cannot install into $install_dir"
  fi
  echo "modellint install: $asset verified (sha256 $actual)"
}

# install_from_source builds the action's own checkout when it is the
# version asked for, else the module at that version through the Go proxy.
install_from_source() {
  command -v go >/dev/null ||
    fail "no release asset fits ${version:-this ref} on $os/$arch, and Go is not installed to build it (add actions/setup-go before this step)"
  if [ -n "$source_dir" ] && [ -f "$source_dir/go.mod" ] && [ "$version" = "$action_ref" ]; then
    echo "modellint install: building ${version:-the checkout} from $source_dir"
    (cd "$source_dir" && CGO_ENABLED=0 GOBIN="$install_dir" go install -trimpath \
      -ldflags "-X main.version=${version:-dev}" ./cmd/modellint ./cmd/modellint-helm)
  elif [ -n "$version" ]; then
    echo "modellint install: go install $module/cmd/modellint@$version $module/cmd/modellint-helm@$version"
    CGO_ENABLED=0 GOBIN="$install_dir" go install -trimpath "$module/cmd/modellint@$version" "$module/cmd/modellint-helm@$version"
  else
    fail "no version given and no checkout to build (set MODELLINT_VERSION)"
  fi
}

release_tag='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
if [[ "$version" =~ $release_tag ]]; then
  install_release || {
    status=$?
    [ "$status" -eq 3 ] || exit "$status"
    install_from_source
  }
else
  install_from_source
fi

"$install_dir/$binary" version
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$install_dir" >>"$GITHUB_PATH"
fi
