#!/usr/bin/env bash
# Builds and runs IntegrationPackages/NameCollision: a client with its own `Geodesy`, `Geocoding`,
# `LocationEngine`, `LocationSources` and `LocationStorage` targets that also depends on this package.
# It fails if one of our module names collides with a client's (SwiftPM: "multiple targets named …").
set -euo pipefail
cd "$(dirname "$0")/../IntegrationPackages/NameCollision"
output=$(swift run --scratch-path "${SCRATCH:-.build}" NameCollisionApp 2>&1 | tail -1)
expected="Geodesy,Geocoding,LocationEngine,LocationSources,LocationStorage 344 km"
if [ "$output" != "$expected" ]; then
    echo "name-collision client: expected '$expected', got '$output'" >&2
    exit 1
fi
echo "name-collision client builds and runs: $output"
