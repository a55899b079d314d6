"""normrt's model files at every matrix dtype the built converter offers:
f32 and bf16 always; int8 and bf16-fast (issue 17) when `normrt-convert
--dtype` accepts them. A refused optional dtype is skipped with the
converter's own message, so the benchmark picks new dtypes up by itself."""
import os

from torch_bench.converter import ConvertError

DTYPES = ["f32", "bf16", "int8", "bf16-fast"]
REQUIRED = ("f32", "bf16")


def convert_all(ctx, folder, name, extra, dtypes=DTYPES):
    """{dtype: NormrtModel} and [skip reasons] for folder's config.json and
    model.safetensors converted with `extra` flags."""
    models, skipped = {}, []
    for dtype in dtypes:
        try:
            models[dtype] = ctx.convert_and_load(os.path.join(folder, "config.json"),
                                                 os.path.join(folder, "model.safetensors"),
                                                 name, dtype, extra)
        except ConvertError as e:
            if dtype in REQUIRED:
                raise
            skipped.append(f"normrt {dtype}: skipped, the converter refuses it ({e})")
    return models, skipped
