"""The tricky strings every tokenizer fixture is checked on (shared by
make_tokenizer_fixtures.py). Each is a case of its own kind: white space,
Unicode classes, special tokens written in the text, length."""

SINGLES = [
    "",
    " ",
    "   ",
    "\t\n \r\n",
    "Hello, world!",
    " leading space",
    "trailing space ",
    "  two  spaces  between   words  ",
    "line one\nline two\n\nline four\n",
    "tabs\tand\u00a0nbsp\u2003em\u3000ideographic space",
    "The quick brown fox jumps over the lazy dog.",
    "UPPER lower MiXeD CaSe",
    "don't we'll I'm you're they've she'd it's",
    "DON'T WE'LL 'S 'll ''quoted'' 'tis",
    "Café naïve résumé façade coöperate",
    "combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323",
    "Ελληνικά: Καλημέρα κόσμε",
    "Русский текст: Привет, мир!",
    "我爱北京天安门。",
    "日本語のテキスト、カタカナとひらがな。",
    "한국어 문장입니다",
    "mixed中文and English词语",
    "Emoji 😀🎉 and ❤️ hearts 👨‍👩‍👧 flags 🇫🇷🇯🇵",
    "Arabic: مرحبا بالعالم and Hebrew: שלום עולם",
    "Hindi: नमस्ते दुनिया, Thai: สวัสดีชาวโลก",
    "zero\u200bwidth\u200cjoiners\u200dand\ufeffbom",
    "control\x01chars\x07here\x1f and\x7fdel\u0085nel",
    "replacement \ufffd char and soft\u00adhyphen",
    "numbers 1234567890 3.14159 1,000,000 0x1F ½ ² ①②",
    "Punctuation!!! ??? ... --- (brackets) [square] {curly} <angle>",
    "Quotes: \"double\" “curly” ‘single curly’ «guillemets»",
    "Math: 3+4=7, x^2 < y*z, 50% off, $100 & €20 ~ £5 | a\\b",
    "e-mail user@example.com http://example.com/path?q=1&r=2#frag",
    "ﬁ ligature ﬂ and full-width ＡＢＣ１２３ and half-width ｶﾞｷﾞｸﾞ",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "pneumonoultramicroscopicsilicovolcanoconiosis" * 6,
    "x" * 300,
    "<s> literal specials </s> <pad> <unk> <mask> [CLS] [SEP] [MASK] [UNK]",
    "fill the <mask> here and<mask>there",
    "a" + " " * 40 + "b",
    "the end.",
]

# (first, second): sentence pairs for cross-encoders.
PAIRS = [
    ("How old are you?", "I am six years old."),
    ("", "only the second"),
    ("only the first", ""),
    ("Café  naïve", " 我爱北京 "),
]

# Cases run again with a small max_length: (text or pair, max_length).
TRUNCATED = [
    ("The quick brown fox jumps over the lazy dog.", 6),
    ("supercalifragilisticexpialidocious antidisestablishmentarianism", 7),
    (("How old are you? I wonder.", "I am six years old, and you are older."), 9),
    (("a b c d e f g h", "x"), 8),
    (("x", "a b c d e f g h"), 8),
    (("a b c d e f", "g h i j k l m n"), 11),
]
