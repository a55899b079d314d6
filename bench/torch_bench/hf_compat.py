"""Hugging Face cache API differences the benchmark meets: transformers 5.x
renamed the forward argument and output field `past_key_values` to `cache`
(the old names warn, then go), and DynamicCache.crop() now takes the number
of tokens to remove (negative) instead of the length to keep."""
import inspect


def cache_argument(model):
    """The name of `model.forward`'s cache argument."""
    parameters = inspect.signature(model.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def output_cache(output):
    cache = getattr(output, "cache", None)
    return cache if cache is not None else output.past_key_values


def crop_to(cache, length):
    """Drops the cache's positions from `length` on."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        params = inspect.signature(cache.crop).parameters
        cache.crop(-extra if "tokens_to_remove" in params else length)
