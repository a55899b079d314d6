#!/usr/bin/env python3
"""Writes wordpiece_cases.txt: Hugging Face's BertTokenizerFast (the Rust
`tokenizers` WordPiece that sentence-transformers uses) on tricky sentences,
with minilm_vocab.txt (all-MiniLM-L6-v2's vocab.txt, do_lower_case=True).

One case per line:  <max_length> TAB <text as hex UTF-8> TAB <ids...>
Run: /work/venv/bin/python make_wordpiece_fixtures.py (writes next to itself).
"""
import os

from transformers import BertTokenizer, BertTokenizerFast

HERE = os.path.dirname(os.path.abspath(__file__))

SENTENCES = [
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "UPPER lower MiXeD CaSe",
    "Café naïve résumé façade coöperate",
    "Ångström, Øresund, Łódź, Dvořák, Ş, ğ",
    "Ελληνικά: Καλημέρα κόσμε, ΆΈΉ",
    "Русский текст: Привет, мир! Ёжик",
    "İstanbul ıi ß ẞ ǅ",
    "我爱北京天安门。",
    "日本語のテキスト、カタカナとひらがな。",
    "한국어 문장입니다",
    "mixed中文and English词语",
    "Emoji 😀🎉 and ❤️ hearts 👨‍👩‍👧",
    "Punctuation!!! ??? ... --- (brackets) [square] {curly} <angle>",
    "Quotes: \"double\" 'single' “curly” ‘single curly’ «guillemets»",
    "Math: 3+4=7, x^2 < y*z, 50% off, $100 & €20 ~ £5 | a\\b",
    "don't won't it's I'm y'all",
    "e-mail user@example.com http://example.com/path?q=1&r=2#frag",
    "  leading and trailing   spaces  ",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em-space\u3000ideographic",
    "zero\u200bwidth\u200cjoiners\u200dand\ufeffbom",
    "control\x01chars\x07here\x1f and\x7fdel\u0085nel",
    "replacement \ufffd char and soft\u00adhyphen",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "a" * 99,
    "b" * 100,
    "c" * 101 + " after",
    "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
    "numbers 1234567890 3.14159 1,000,000 0x1F",
    "unbelievably unaffable tokenization reparameterization",
    "combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323",
    "ﬁ ligature ﬂ and ½ fraction ² superscript ™ ℃",
    "full-width ＡＢＣ１２３ and half-width ｶﾀｶﾅ",
    "Arabic: مرحبا بالعالم and Hebrew: שלום",
    "Hindi: नमस्ते दुनिया, Thai: สวัสดีชาวโลก",
    "",
    "   ",
    "[CLS] [SEP] [MASK] [UNK] [PAD] literal specials",
    "##hash ## #tag",
    "Ünïcödé ÀÉÎÕÜ àéîõü ÇçÑñ",
    "A long sentence that will be truncated because the maximum length is small here.",
]
TRUNCATED = {len(SENTENCES) - 1: 12, 1: 5}  # index -> max_length


def main():
    vocab = os.path.join(HERE, "minilm_vocab.txt")
    fast = BertTokenizerFast(vocab, do_lower_case=True)
    slow = BertTokenizer(vocab, do_lower_case=True)
    with open(os.path.join(HERE, "wordpiece_cases.txt"), "w") as out:
        for index, text in enumerate(SENTENCES):
            max_length = TRUNCATED.get(index, 512)
            ids = fast(text, truncation=True, max_length=max_length)["input_ids"]
            slow_ids = slow(text, truncation=True, max_length=max_length)["input_ids"]
            if ids != slow_ids:
                print(f"note: the slow tokenizer differs on case {index}: {text!r}")
            out.write(f"{max_length}\t{text.encode('utf-8').hex()}\t{' '.join(map(str, ids))}\n")


if __name__ == "__main__":
    main()
