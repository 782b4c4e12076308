#!/usr/bin/env bash
# The image layer cache for action.yml: where modellint keeps it, and the
# key it is saved under. Written to $GITHUB_OUTPUT (or stdout):
#
#   bash scripts/action-cache.sh dir   # dir=, the --cache-dir modellint uses
#   bash scripts/action-cache.sh key   # key=, from the images the run read
#
# The directory is the one the action's args (MODELLINT_ARGS, split as
# action-lint.sh splits them) give with --cache-dir DIR or --cache-dir=DIR
# (or MODELLINT_CACHE_DIR), made absolute from the working directory the
# lint step runs in, else modellint's default. With --no-cache (or
# MODELLINT_NO_CACHE=1, or an empty --cache-dir) modellint caches nothing:
# dir= and key= are empty and nothing is restored or saved.
#
# The key hashes images.txt, which modellint writes into the cache
# directory: the digests of the images a run read. It changes only when the
# images do, so a run on the same images saves nothing new; a run on other
# images saves a new entry, and the next job restores the newest entry
# whose key starts with MODELLINT_CACHE_PREFIX. Empty when no image was
# read: there is nothing worth saving.
set -euo pipefail

prefix=${MODELLINT_CACHE_PREFIX:-modellint-}

# cache_dir is os.UserCacheDir()/modellint, as modellint computes it.
cache_dir() {
  case "$(uname -s)" in
    Darwin) echo "$HOME/Library/Caches/modellint" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) echo "${LOCALAPPDATA:?}/modellint" ;;
    *) echo "${XDG_CACHE_HOME:-$HOME/.cache}/modellint" ;;
  esac
}

# truthy: whether a --no-cache value is true as strconv.ParseBool reads
# it; --no-cache alone is true.
truthy() {
  case "$1" in
    --no-cache | 1 | t | T | true | TRUE | True) return 0 ;;
  esac
  return 1
}

# args_cache_dir prints the cache directory the args give modellint, as
# its flags read them: the last --cache-dir wins, --no-cache (true as
# strconv.ParseBool reads it) or an empty --cache-dir turns the cache off
# whatever their order, and nothing after -- is a flag. A flag the args
# leave out is read from MODELLINT_CACHE_DIR or MODELLINT_NO_CACHE, as
# modellint reads it. modellint's default when nothing names a directory;
# nothing when the cache is off.
args_cache_dir() {
  local -a args
  read -r -d '' -a args <<<"${MODELLINT_ARGS:-}" || true
  local dir="" named=false no_cache_given=false off=false i=0
  while [ "$i" -lt "${#args[@]}" ]; do
    case "${args[$i]}" in
      --) break ;;
      --cache-dir=*) named=true dir=${args[$i]#--cache-dir=} ;;
      --cache-dir)
        i=$((i + 1))
        named=true dir=${args[$i]:-}
        ;;
      --no-cache | --no-cache=*)
        no_cache_given=true
        truthy "${args[$i]#--no-cache=}" && off=true
        ;;
    esac
    # Once empty, modellint's --cache-dir stays empty.
    [ "$named" = true ] && [ -z "$dir" ] && off=true
    i=$((i + 1))
  done
  if [ "$named" = false ] && [ -n "${MODELLINT_CACHE_DIR:-}" ]; then
    named=true dir=$MODELLINT_CACHE_DIR
  fi
  if [ "$no_cache_given" = false ] && truthy "${MODELLINT_NO_CACHE:-}"; then
    off=true
  fi
  [ "$off" = false ] || return 0
  case "$named:$dir" in
    false:*) cache_dir ;;
    true:/*) echo "$dir" ;;
    *) echo "$PWD/$dir" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1" >>"$GITHUB_OUTPUT"
  else
    echo "$1"
  fi
}

case "${1:-}" in
  dir)
    dir=$(args_cache_dir)
    if [ -z "$dir" ]; then
      echo "modellint cache: the args turn the layer cache off (--no-cache or an empty --cache-dir); nothing is restored or saved"
    fi
    output "dir=$dir"
    ;;
  key)
    dir=$(args_cache_dir)
    images="$dir/images.txt"
    if [ -z "$dir" ]; then
      echo "modellint cache: the args turn the layer cache off (--no-cache or an empty --cache-dir); nothing to save"
      output "key="
    elif [ -s "$images" ]; then
      echo "modellint cache: images read:"
      sed 's/^/  /' "$images"
      output "key=$prefix$(sha256 "$images")"
    else
      echo "modellint cache: no image was read; nothing to save"
      output "key="
    fi
    ;;
  *)
    echo "usage: action-cache.sh dir|key" >&2
    exit 2
    ;;
esac
