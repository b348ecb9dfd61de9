#!/usr/bin/env bash
# What the tests need from Debian, installed when missing (as root, or through sudo): Chromium and
# CJK fonts for the browser tests and the worksheet's PDF, poppler-utils to read that PDF back,
# redis-server and nginx for the room store's and deploy/local.sh's tests (started on loopback).
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
fc-list 2>/dev/null | grep -qi "noto.*cjk" || missing+=(fonts-noto-cjk)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v nginx >/dev/null || missing+=(nginx)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing from Debian: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
