#!/usr/bin/env bash
# Regenerates docs/configuration.md's environment-variable table from the config loader
# (netscore::documented_variables via tests/tools/netscore-env-doc). The unit test
# deploy_env_doc_reference fails when the page and the loader disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/default/CMakeCache.txt ] || cmake --preset default >/dev/null
cmake --build --preset default --target netscore-env-doc >/dev/null
python3 tests/tools/env_doc.py --tool build/default/tests/tools/netscore-env-doc --write docs/configuration.md
