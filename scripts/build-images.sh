#!/usr/bin/env bash
# Builds the relay's images from the repository root with buildah (or podman), on the Node base pinned by digest, and
# prints each image's size: the six services, the command runner (with the agent CLIs: AGENT_CLIS, default all
# three) and the migration runner. All service images share one build stage, built once.
#
#   scripts/build-images.sh                      # tags relay/<name>:dev
#   TAG=1.4.0 REGISTRY=registry.example.com/relay scripts/build-images.sh
#   NODE_IMAGE=docker.io/library/node:24-slim@sha256:<digest> scripts/build-images.sh
#   AGENT_CLIS=claude scripts/build-images.sh    # the runner with Claude Code only (none: without any)
#
# NODE_IMAGE must name its digest. Unset, the script pulls docker.io/library/node:24-slim once, resolves the digest
# it got and builds every image on exactly that (printed, so a release can record and reuse it). Where docker.io
# cannot be reached, scripts/build-local-base.sh makes a stand-in from Debian's mirror and the npm registry and
# prints it pinned by digest: NODE_IMAGE=$(scripts/build-local-base.sh) scripts/build-images.sh.
# buildah's own settings come from its environment: BUILDAH_ISOLATION=chroot without an OCI runtime (runc, crun)
# or inside a container that cannot nest one, STORAGE_DRIVER=vfs where overlay mounts are refused.
# Pushing is README.md's "Images" (buildah push / podman push, then the digests into the prod overlay).
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICES=(gateway session subscription scheduler question pairing runner)
TAG="${TAG:-dev}"
REGISTRY="${REGISTRY:-relay}"

if command -v buildah >/dev/null; then
  BUILD=(buildah bud --layers) ; TOOL=buildah
elif command -v podman >/dev/null; then
  BUILD=(podman build --layers) ; TOOL=podman
else
  echo "build-images: needs buildah or podman (Debian: apt-get install buildah)" >&2
  exit 1
fi

if [ -z "${NODE_IMAGE:-}" ]; then
  base=docker.io/library/node:24-slim
  echo "resolving $base"
  if ! "$TOOL" pull -q "$base" >/dev/null && [ "$TOOL" = buildah ]; then
    echo "build-images: $base cannot be pulled here: building a stand-in (scripts/build-local-base.sh)"
    NODE_IMAGE=$(scripts/build-local-base.sh)
  fi
fi
if [ -z "${NODE_IMAGE:-}" ]; then
  if [ "$TOOL" = buildah ]; then
    digest=$(buildah inspect --type image --format '{{.FromImageDigest}}' "$base")
  else
    digest=$(podman image inspect --format '{{.Digest}}' "$base")
  fi
  NODE_IMAGE="$base@$digest"
fi
case "$NODE_IMAGE" in
  *@sha256:*) ;;
  *) echo "build-images: NODE_IMAGE must be pinned by digest (…@sha256:…), not $NODE_IMAGE" >&2; exit 1 ;;
esac
echo "base: $NODE_IMAGE"

build() { # <name> <Dockerfile> [build args…]
  local image="$REGISTRY/$1:$TAG" dockerfile="$2"
  shift 2
  echo "building $image"
  # BuildKit finds <Dockerfile>.dockerignore by itself; buildah and podman are told (it keeps node_modules, dist and
  # generated code of the checkout out of the build).
  "${BUILD[@]}" --ignorefile "$dockerfile.dockerignore" --build-arg "NODE_IMAGE=$NODE_IMAGE" \
    --label "org.opencontainers.image.base.name=$NODE_IMAGE" "$@" -f "$dockerfile" -t "$image" .
}

for service in "${SERVICES[@]}"; do
  build "$service" docker/service/Dockerfile --build-arg "SERVICE=$service" --build-arg "AGENT_CLIS=${AGENT_CLIS:-claude,codex,copilot}"
done
build migrate docker/migrate/Dockerfile

echo
printf '%-48s %s\n' IMAGE SIZE
printf '%-48s %s\n' "(base) ${NODE_IMAGE%%@*}" "$("$TOOL" images --noheading --format '{{.Size}}' "$NODE_IMAGE" | head -1)"
for name in "${SERVICES[@]}" migrate; do
  image="$REGISTRY/$name:$TAG"
  printf '%-48s %s\n' "$image" "$("$TOOL" images --noheading --format '{{.Size}}' "$image" | head -1)"
done
