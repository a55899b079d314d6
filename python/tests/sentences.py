"""The texts of the sentence-transformers comparison: short and long, empty
and white space, accents, Greek, Cyrillic, CJK, emoji, numbers, code, URLs,
and four texts of 129 to 256 tokens plus one beyond 256 (truncated at
sentence-transformers' max_seq_length, 256, on both sides)."""

_HISTORY = (
    "The printing press, developed in the fifteenth century, changed how knowledge moved "
    "through Europe. Before it, books were copied by hand, slowly and at great cost, so that "
    "only monasteries, universities and the very rich could keep libraries. Within a few "
    "decades of the first presses, printers in dozens of cities were producing pamphlets, "
    "grammars, calendars, maps and scientific treatises in the thousands. Prices fell, "
    "literacy spread beyond the clergy, and ideas that once took a generation to travel now "
    "crossed the continent in months. "
)
_KITCHEN = (
    "To make a simple bread, mix five hundred grams of flour with ten grams of salt, seven "
    "grams of dried yeast and about three hundred and fifty millilitres of warm water. Knead "
    "the dough for ten minutes until it is smooth and elastic, then leave it covered in a warm "
    "place for an hour or until it has doubled in size. Shape it into a loaf, let it rise "
    "again for thirty minutes, and bake it at two hundred and twenty degrees for about half an "
    "hour, until the crust is golden and the base sounds hollow when tapped. "
)
_SUPPORT = (
    "Hello, I ordered a pair of running shoes (order #A-20931) on the 3rd of March and paid "
    "€89.99 with express shipping, but the tracking page still says 'label created' after "
    "nine days! I've emailed twice and called once; nobody answered. Could you please tell me "
    "whether the parcel was ever sent, and if not, cancel the order and refund the full "
    "amount, including the €12.50 shipping fee? Thanks in advance — Maria. "
)

SENTENCES = [
    "This is an example sentence.",
    "Each sentence is converted into a vector.",
    "",
    "   leading and trailing spaces   ",
    "A man is eating food.",
    "A man is riding a white horse on an enclosed ground.",
    "The new movie is awesome!!! 🎬🍿",
    "Naïve café owners in Zürich serve crème brûlée.",
    "東京は日本の首都です。",
    "Москва — столица России.",
    "Γειά σου Κόσμε, τι κάνεις;",
    "The price rose 3.5% to $1,234.56 on 2024-01-15.",
    "Don't you think it's over-engineered? I'd say yes.",
    "UPPER CASE AND lower case MiXeD",
    "def f(x): return x ** 2  # a Python function",
    "https://example.com/path?query=1&other=two",
    "Supercalifragilisticexpialidocious antidisestablishmentarianism",
    "Tabs\tand\nnewlines\r\nin text",
    "Is it raining in Paris today?",
    "The quick brown fox jumps over the lazy dog.",
    _HISTORY,
    _HISTORY + "Governments soon tried to license the presses and to censor what they printed, "
    "with mixed success, because a banned book could always be printed across a border.",
    _KITCHEN + _SUPPORT,
    _HISTORY + _KITCHEN,
    _SUPPORT + _HISTORY + "In short: print made knowledge cheap, and " + _KITCHEN[:120],
    _HISTORY + _KITCHEN + _SUPPORT,
]
