# Sourced by .ci/run: start the k8s-kit's one-node cluster for the Kubernetes suites, when the kit is there.
# The kit sits beside the checkout (../shared/k8s-kit) or at /work/shared/k8s-kit; without it (or when it
# cannot start) the Kubernetes suites report themselves skipped with the reason. `down` always runs at exit.

k8s_kit_dir() {
  local top candidate
  top="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
  for candidate in "$top/../shared/k8s-kit" /work/shared/k8s-kit; do
    if [ -x "$candidate/up" ] && [ -x "$candidate/down" ]; then
      (cd "$candidate" && pwd)
      return 0
    fi
  done
  return 1
}

start_k8s_kit() {
  local kit env_file
  kit="$(k8s_kit_dir)" || { echo "ci: no k8s-kit: the Kubernetes suites will be reported as skipped"; return 0; }
  # A named state keeps the kit's cache (binaries, image) between runs: a warm start takes seconds.
  export K8S_KIT_STATE="${K8S_KIT_STATE:-/var/tmp/dsh-ci-k8s}"
  K8S_KIT_DOWN="$kit/down"
  # Set before `up`: an interrupted start is taken down too. `down` acts on this state only.
  trap 'stop_k8s_kit' EXIT
  echo "ci: starting the k8s-kit cluster ($kit)"
  if ! env_file="$("$kit/up")"; then
    echo "ci: the k8s-kit cluster did not start: the Kubernetes suites will be reported as skipped"
    return 0
  fi
  K8S_KIT_ENV="$env_file"
  # shellcheck disable=SC1090
  . "$env_file"
  export KUBECONFIG K8S_KIT_IMAGE
}

stop_k8s_kit() {
  local status=$?
  if [ -n "${K8S_KIT_DOWN:-}" ]; then
    echo "ci: stopping the k8s-kit cluster"
    "$K8S_KIT_DOWN" ${K8S_KIT_ENV:+"$K8S_KIT_ENV"} >/dev/null 2>&1 || echo "ci: k8s-kit down failed (state ${K8S_KIT_STATE})"
    K8S_KIT_DOWN=""
  fi
  return "$status"
}
