# Sourced by the test scripts (tests/run.sh and the editor clients' scripts).
#
# need_deb PACKAGE...: installs the Debian packages that are not installed yet, with sudo when
# not root; `apt-get update` runs at most once per script. Idempotent: nothing is fetched when
# every package is there. Messages go to stderr, prefixed with $need_deb_who (the caller's name).

need_deb_updated=0

need_deb() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ "$need_deb_updated" -eq 0 ]; then
    $sudo apt-get update -qq
    need_deb_updated=1
  fi
  echo "${need_deb_who:-need_deb}: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
