# The fuzz targets: one list feeds the libFuzzer executables (fuzz/CMakeLists.txt,
# clang only) and the replay tests built with any compiler (tests/fuzz/).
# Target <name>: source fuzz/fuzz_<name>.cc, seeds fuzz/corpus/<name>/, crash
# reproducers fuzz/regressions/<name>/, dictionary fuzz/<name>.dict (optional).
set(NORMRT_FUZZ_TARGETS model_loader safetensors npy npz json_config tokenizer_bytes tokenizer_json serve_request)

# The libraries each target exercises.
set(NORMRT_FUZZ_LIBS_model_loader normrt_runtime)
set(NORMRT_FUZZ_LIBS_safetensors normrt_readers)
set(NORMRT_FUZZ_LIBS_npy normrt_readers)
set(NORMRT_FUZZ_LIBS_npz normrt_readers)
set(NORMRT_FUZZ_LIBS_json_config normrt_convert)
set(NORMRT_FUZZ_LIBS_tokenizer_bytes normrt_text)
set(NORMRT_FUZZ_LIBS_tokenizer_json normrt_text)
set(NORMRT_FUZZ_LIBS_serve_request normrt_serve)
