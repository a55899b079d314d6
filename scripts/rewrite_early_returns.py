#!/usr/bin/env python3
"""Rewrites hand-written early returns into the macros of base/status.h.

    Status s = f(); if (!s) return s;              -> NORMRT_RETURN_IF_ERROR(f());
    if (Status s = f(); !s) return s;              -> NORMRT_RETURN_IF_ERROR(f());
    Expected<T> x = f(); if (!x) return x.status();
        x unused after                             -> NORMRT_RETURN_IF_ERROR(f());
        x used as *x, x->, x.value(), std::move(x).value()
                                                   -> NORMRT_ASSIGN_OR_RETURN(T x, f());
                                                      and those uses become uses of the value

Only where the declaration directly precedes the check (so evaluation order is
unchanged), without comments inside, and where the variable is not used as a
Status/Expected afterwards (returned whole, .status(), reassigned and used
otherwise...). Checks that add context to the message are not touched. Prints
one line per converted site and per candidate left alone, with the reason.

usage: scripts/rewrite_early_returns.py [--check-types | --strip-checks] [--report FILE] files...

The written code is unformatted: run `git diff -U0 | clang-format-diff -p1 -i`.
A file that reached Status only through include/normrt/*.hpp needs
#include "base/status.h" (the compiler names it).

Verification: a declaration `Expected<T> x = f();` converts f()'s result, so
the rewrite is exact only if f() returns exactly Expected<T>. --check-types
puts a static_assert of that before each such conversion; build, then run
again with --strip-checks on the same files to remove them.
"""
import re
import sys

CHECK_TAG = 'rewrite_early_returns: type check'


class Tok:
    __slots__ = ('kind', 'text', 'start', 'end')

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self):
        return f'{self.kind}:{self.text}'


PUNCT3 = ['<<=', '>>=', '...', '->*']
PUNCT2 = ['->', '::', '&&', '||', '==', '!=', '<=', '>=', '<<', '>>', '++', '--', '+=', '-=',
          '*=', '/=', '%=', '&=', '|=', '^=', '.*']


def lex(src):
    toks = []
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if c == '\n':
            line_start = True
            i += 1
            continue
        if c in ' \t\r\f\v':
            i += 1
            continue
        if line_start and c == '#':
            j = i
            while j < n:
                k = src.find('\n', j)
                if k < 0:
                    k = n
                if src[k - 1] == '\\':
                    j = k + 1
                    continue
                break
            toks.append(Tok('pp', src[i:k], i, k))
            i = k
            continue
        line_start = False
        if src.startswith('//', i):
            k = src.find('\n', i)
            k = n if k < 0 else k
            toks.append(Tok('comment', src[i:k], i, k))
            i = k
            continue
        if src.startswith('/*', i):
            k = src.find('*/', i + 2) + 2
            toks.append(Tok('comment', src[i:k], i, k))
            i = k
            continue
        m = re.match(r'(u8|u|U|L)?R"([^(\s]*)\(', src[i:i + 40])
        if m:
            delim = ')' + m.group(2) + '"'
            k = src.find(delim, i + m.end()) + len(delim)
            toks.append(Tok('str', src[i:k], i, k))
            i = k
            continue
        m = re.match(r'(u8|u|U|L)?(["\'])', src[i:i + 3])
        if m and (c in '"\'' or m.group(1)):
            q = m.group(2)
            j = i + m.end()
            while src[j] != q:
                j += 2 if src[j] == '\\' else 1
            toks.append(Tok('str', src[i:j + 1], i, j + 1))
            i = j + 1
            continue
        m = re.match(r'[A-Za-z_]\w*', src[i:i + 200])
        if m:
            toks.append(Tok('id', m.group(0), i, i + m.end()))
            i += m.end()
            continue
        m = re.match(r"\.?\d([\w.']|[eEpP][+-])*", src[i:i + 100])
        if m:
            toks.append(Tok('num', m.group(0), i, i + m.end()))
            i += m.end()
            continue
        for p in PUNCT3 + PUNCT2:
            if src.startswith(p, i):
                toks.append(Tok('p', p, i, i + len(p)))
                i += len(p)
                break
        else:
            toks.append(Tok('p', c, i, i + 1))
            i += 1
    return toks


OPEN = {'(': ')', '[': ']', '{': '}'}
CLOSE = {')': '(', ']': '[', '}': '{'}


class File:
    def __init__(self, path):
        self.path = path
        self.src = open(path).read()
        self.all = lex(self.src)
        self.t = [x for x in self.all if x.kind not in ('comment', 'pp')]
        self.match = {}
        stack = []
        for i, x in enumerate(self.t):
            if x.kind == 'p' and x.text in OPEN:
                stack.append(i)
            elif x.kind == 'p' and x.text in CLOSE:
                j = stack.pop()
                self.match[i] = j
                self.match[j] = i
        assert not stack, path

    def line(self, i):
        return self.src.count('\n', 0, self.t[i].start) + 1

    def txt(self, i, j):  # source text of tokens i..j inclusive
        return self.src[self.t[i].start:self.t[j].end]

    def texts(self, i, j):
        return [x.text for x in self.t[i:j + 1]]

    def comments_outside(self, a, b, ea, eb):
        """True if a comment lies in tokens a..b but outside the kept tokens ea..eb."""
        lo, hi = self.t[a].start, self.t[b].end
        klo, khi = self.t[ea].start, self.t[eb].end
        return any(c.kind == 'comment' and lo <= c.start < hi and not (klo <= c.start < khi)
                   for c in self.all)

    def comments_between(self, a, b):
        """True if a comment lies between the end of token a and the start of token b."""
        lo, hi = self.t[a].end, self.t[b].start
        return any(c.kind == 'comment' and lo <= c.start < hi for c in self.all)


def split_top(f, i, j, sep):
    """Indices of top-level `sep` tokens in i..j."""
    out, k = [], i
    while k <= j:
        x = f.t[k]
        if x.kind == 'p' and x.text in OPEN:
            k = f.match[k] + 1
            continue
        if x.kind == 'p' and x.text == sep:
            out.append(k)
        k += 1
    return out


def parse_check(f, k):
    """At an `if` token k: returns dict(name, init=(a,b) or None, end, ret) or None.
    Recognised: if ([init;] !NAME | !NAME.is_ok()) return NAME | NAME.status(); [braced]"""
    t = f.t
    if t[k].text != 'if' or k + 1 >= len(t) or t[k + 1].text != '(':
        return None
    if k > 0 and t[k - 1].text == 'else':
        return None  # else-if chains: keep
    lp = k + 1
    rp = f.match[lp]
    semis = split_top(f, lp + 1, rp - 1, ';')
    if len(semis) > 1:
        return None
    cond_a = semis[0] + 1 if semis else lp + 1
    cond = f.texts(cond_a, rp - 1)
    if len(cond) == 2 and cond[0] == '!' and t[cond_a + 1].kind == 'id':
        name = cond[1]
    elif len(cond) == 6 and cond[0] == '!' and cond[2:] == ['.', 'is_ok', '(', ')']:
        name = cond[1]
    else:
        return None
    b = rp + 1
    braced = t[b].text == '{'
    if braced:
        body_a, body_end = b + 1, f.match[b]
        body = f.texts(body_a, body_end - 1)
    else:
        body_a = b
        e = b
        while t[e].text != ';':
            if t[e].text in OPEN:
                e = f.match[e]
            e += 1
        body_end = e
        body = f.texts(body_a, body_end)
    if body and body[-1] != ';':
        return None
    if body == ['return', name, ';']:
        ret = 'self'
    elif body == ['return', name, '.', 'status', '(', ')', ';']:
        ret = 'status'
    else:
        return None
    if body_end + 1 < len(t) and t[body_end + 1].text == 'else':
        return None
    if braced and f.comments_between(rp, body_end):
        return None
    init = (lp + 1, semis[0] - 1) if semis else None
    return dict(k=k, name=name, init=init, end=body_end, ret=ret)


def parse_decl(f, a, b, name):
    """Tokens a..b are `[decl] NAME = EXPR`. Returns (decl_a, decl_b or None, expr_a, expr_b)."""
    eqs = split_top(f, a, b, '=')
    if not eqs:
        return None
    eq = eqs[0]
    if eq - 1 < a or f.t[eq - 1].text != name or eq + 1 > b:
        return None
    decl = (a, eq - 2) if eq - 1 > a else None
    return decl, (eq + 1, b)


def statement_start(f, semi):
    """Index of the first token of the statement ending at token `semi` (a ';')."""
    t = f.t
    k = semi - 1
    while k >= 0:
        x = t[k].text
        if x in CLOSE:
            if x == '}' and t[k + 1].kind == 'id':
                return k + 1  # a block ended right before this statement
            k = f.match[k] - 1
            continue
        if x in OPEN or x == ';':
            return k + 1
        if x == ':' and k > 0 and (t[k - 1].text in ('public', 'private', 'protected', 'default')
                                   or any(t[j].text == 'case' for j in range(max(0, k - 4), k))):
            return k + 1
        k -= 1
    return 0


def scope_end(f, k):
    """Index of the `}` closing the block that contains token k."""
    t = f.t
    depth = 0
    while k < len(t):
        x = t[k].text
        if x in OPEN:
            k = f.match[k] + 1
            continue
        if x == '}':
            return k
        k += 1
    return len(t) - 1


def classify_decl(f, decl):
    """'status', 'expected' (type text), 'auto', or None."""
    if decl is None:
        return None, None
    toks = f.texts(*decl)
    if toks and toks[0] == 'const':
        toks = toks[1:]
        const = 'const '
    else:
        const = ''
    if toks == ['Status'] or toks == ['normrt', '::', 'Status']:
        return 'status', None
    if toks == ['auto']:
        return 'auto', const + 'auto'
    if len(toks) >= 4 and toks[-1] == '>' or (len(toks) >= 3 and toks[-1] == '>>'):
        pass
    if toks and (toks[0] == 'Expected' or toks[:3] == ['normrt', '::', 'Expected']):
        # the type between the first '<' and the final '>'
        a = decl[0] + (1 if const else 0)
        while f.t[a].text != '<':
            a += 1
        b = decl[1]
        if f.t[b].text == '>':
            inner = f.src[f.t[a].end:f.t[b].start].strip()
        elif f.t[b].text == '>>':
            inner = f.src[f.t[a].end:f.t[b].start].strip() + '>'
        else:
            return None, None
        return 'expected', (const + inner, f.src[f.t[decl[0] + (1 if const else 0)].start:f.t[b].end])
    return None, None


class Edit:
    def __init__(self, a, b, text):
        self.a, self.b, self.text = a, b, text  # source char range [a, b)


def is_member_use(f, i):
    return i > 0 and f.t[i - 1].text in ('.', '->', '::')


def value_use_edits(f, occ):
    """Edits that turn Expected uses (*x, x->, x.value(), std::move(x).value(), std::move(*x))
    into uses of the value. Returns list of Edit or None if some use is not one of these."""
    t = f.t
    edits = []
    moved_at = None
    for n, i in enumerate(occ):
        if moved_at is not None:
            return None  # used after std::move(*x): copy vs move would differ
        prev = t[i - 1].text
        nxt = t[i + 1].text if i + 1 < len(t) else ''
        unary_star = prev == '*' and not (
            i >= 2 and (t[i - 2].kind in ('num', 'str') or t[i - 2].text in (')', ']') or
                        (t[i - 2].kind == 'id' and t[i - 2].text not in
                         ('return', 'throw', 'case', 'co_return', 'sizeof'))))
        if unary_star and nxt in ('.', '->', '[', '('):
            unary_star = False  # `*x.value()`, `*x->y`: the star applies to the postfix result
        if unary_star:
            # `( * x )` -> `x`;  `std::move(*x)` -> `std::move(x)`;  `*x` -> `x`
            if (i >= 5 and f.texts(i - 5, i - 1) == ['std', '::', 'move', '(', '*'] and nxt == ')'):
                edits.append(Edit(t[i - 1].start, t[i - 1].end, ''))
                moved_at = n
            elif i >= 2 and t[i - 2].text == '(' and nxt == ')' and f.match[i - 2] == i + 1:
                before = t[i - 3].text if i >= 3 else ''
                after = t[i + 2].text if i + 2 < len(t) else ''
                call_paren = (t[i - 3].kind == 'id' and before != 'return') or before in ('>', ')', ']')
                if (after in ('.', '->', '[') and not call_paren) or (before == 'return' and after == ';'):
                    # `(*x)->y` -> `x->y`;  `return (*x);` -> `return x;`
                    edits.append(Edit(t[i - 2].start, t[i + 1].end, f.t[i].text))
                else:
                    # a call or cast `f(*x)`, `static_cast<T>(*x)`: keep its parentheses
                    edits.append(Edit(t[i - 1].start, t[i - 1].end, ''))
            else:
                edits.append(Edit(t[i - 1].start, t[i - 1].end, ''))
            continue
        if nxt == '->':
            edits.append(Edit(t[i + 1].start, t[i + 1].end, '.'))
            continue
        if f.texts(i + 1, i + 4) == ['.', 'value', '(', ')']:
            if (i >= 4 and f.texts(i - 4, i - 1) == ['std', '::', 'move', '('] and
                    t[i + 5].text == ')' and f.match[i - 1] == i + 5):
                moved_at = n  # std::move(x.value())
            edits.append(Edit(t[i].end, t[i + 4].end, ''))
            continue
        if (i >= 4 and f.texts(i - 4, i - 1) == ['std', '::', 'move', '('] and
                f.texts(i + 1, i + 5) == [')', '.', 'value', '(', ')']):
            edits.append(Edit(t[i + 1].end, t[i + 5].end, ''))
            moved_at = n
            continue
        return None
    return edits


def process(path, check_types, report):
    f = File(path)
    t = f.t
    checks = {}
    for k, x in enumerate(t):
        if x.kind == 'id' and x.text == 'if':
            c = parse_check(f, k)
            if c:
                checks[k] = c
    edits = []
    done = set()
    rel = path
    site_edits_mark = [None, None]
    site_edits = []  # (report rows, [Edit]) per converted site

    def type_check(expr, typ):
        return (f'static_assert(std::is_same_v<std::decay_t<decltype({expr})>, {typ}>, '
                f'"{CHECK_TAG}");')

    def rie(expr_a, expr_b, typ):
        e = f.txt(expr_a, expr_b)
        if check_types and typ:
            return '{ ' + type_check(e, typ) + f' NORMRT_RETURN_IF_ERROR({e}); }}'
        return f'NORMRT_RETURN_IF_ERROR({e});'

    def skip(c, why):
        report.append(('left', rel, f.line(c['k']), why))

    for k, c in sorted(checks.items()):
        if site_edits_mark[0] is not None:
            site_edits.append((report[site_edits_mark[1]:], edits[site_edits_mark[0]:]))
            del report[site_edits_mark[1]:]
            del edits[site_edits_mark[0]:]
        site_edits_mark[0], site_edits_mark[1] = len(edits), len(report)
        if k in done:
            continue
        name = c['name']
        if c['init']:
            a, b = c['init']
            d = parse_decl(f, a, b, name)
            if not d or d[0] is None:
                skip(c, 'if-init without a declaration')
                continue
            kind, info = classify_decl(f, d[0])
            if kind is None:
                skip(c, 'if-init of type ' + ' '.join(f.texts(*d[0])))
                continue
            if kind == 'status' and c['ret'] != 'self':
                skip(c, 'odd return')
                continue
            typ = info[1] if kind == 'expected' else None
            if f.comments_outside(k, c['end'], d[1][0], d[1][1]):
                skip(c, 'a comment inside the statement')
                continue
            edits.append(Edit(t[k].start, t[c['end']].end, rie(d[1][0], d[1][1], typ)))
            report.append(('return_if_error', rel, f.line(k), 'if-init'))
            done.add(k)
            continue
        # the statement before the `if`
        semi = k - 1
        if semi < 0 or t[semi].text != ';':
            skip(c, 'not preceded by a statement')
            continue
        s0 = statement_start(f, semi)
        d = parse_decl(f, s0, semi - 1, name)
        if not d:
            skip(c, 'previous statement does not set ' + name)
            continue
        if f.comments_between(semi, k):
            skip(c, 'comment between the statement and the check')
            continue
        if d[0] is None:
            continue  # an assignment: handled with its declaration's group (or left)
        if f.comments_outside(s0, c['end'], d[1][0], d[1][1]):
            skip(c, 'a comment inside the statement')
            continue
        kind, info = classify_decl(f, d[0])
        if kind is None:
            skip(c, 'declared type ' + ' '.join(f.texts(*d[0])))
            continue
        # every later use of the name in its scope
        end = scope_end(f, c['end'] + 1)
        occ = [i for i in range(c['end'] + 1, end) if t[i].kind == 'id' and t[i].text == name
               and not is_member_use(f, i)]
        # assignment + check pairs: `name = expr; if (!name) return ...;`
        pairs = []
        rest = []
        i_set = set()
        for i in occ:
            if i in i_set:
                continue
            if (t[i - 1].text in (';', '{', '}') and t[i + 1].text == '='):
                e = i + 1
                while t[e].text != ';':
                    if t[e].text in OPEN:
                        e = f.match[e]
                    e += 1
                cc = checks.get(e + 1)
                if (cc and cc['name'] == name and not cc['init'] and
                        not f.comments_outside(i, cc['end'], i + 2, e - 1)):
                    pairs.append((i, e, cc))
                    for j in range(i, cc['end'] + 1):
                        if t[j].text == name:
                            i_set.add(j)
                    continue
            rest.append(i)
        if kind == 'status' and c['ret'] != 'self':
            skip(c, 'odd return')
            continue
        typ = info[1] if kind == 'expected' else None
        if not rest:
            edits.append(Edit(t[s0].start, t[c['end']].end, rie(d[1][0], d[1][1], typ)))
            report.append(('return_if_error', rel, f.line(k), 'declared'))
            done.add(k)
            for (i, e, cc) in pairs:
                edits.append(Edit(t[i].start, t[cc['end']].end, rie(i + 2, e - 1, typ)))
                report.append(('return_if_error', rel, f.line(cc['k']), 'reassigned'))
                done.add(cc['k'])
            continue
        if pairs:
            skip(c, f'{name} reassigned and used otherwise')
            continue
        if kind == 'status':
            skip(c, f'Status {name} used after the check')
            continue
        ve = value_use_edits(f, rest)
        if ve is None:
            skip(c, f'{name} used as an Expected after the check')
            continue
        lhs = info if kind == 'auto' else info[0]
        expr = f.txt(*d[1])
        check = type_check(expr, info[1]) + ' ' if check_types and kind == 'expected' else ''
        edits.append(Edit(t[s0].start, t[c['end']].end,
                          f'{check}NORMRT_ASSIGN_OR_RETURN({lhs} {name}, {expr});'))
        edits += ve
        report.append(('assign_or_return', rel, f.line(k), lhs))
        done.add(k)
    if site_edits_mark[0] is not None:
        site_edits.append((report[site_edits_mark[1]:], edits[site_edits_mark[0]:]))
        del report[site_edits_mark[1]:]
        del edits[site_edits_mark[0]:]
    accepted = []
    deferred = False
    for rows, es in site_edits:
        if any(not (e.b <= x.a or x.b <= e.a) for e in es for x in accepted):
            deferred = True
            continue
        accepted += es
        report += rows
    edits = accepted
    if edits:
        report[:] = [r for r in report if r[0] != 'left']
    # the checks after an assignment whose group was not converted
    for k, c in sorted(checks.items()):
        if k in done or c['init']:
            continue
        if k - 1 >= 0 and t[k - 1].text == ';':
            s0 = statement_start(f, k - 1)
            d = parse_decl(f, s0, k - 2, c['name'])
            if d and d[0] is None:
                skip(c, 'assignment to ' + c['name'] + ' (declared elsewhere)')
    if not edits:
        return []
    report[:] = [r for r in report if r[0] != 'left']
    edits.sort(key=lambda e: e.a)
    for x, y in zip(edits, edits[1:]):
        assert x.b <= y.a, (path, x.a, y.a)
    src = f.src
    out = []
    pos = 0
    changed = []
    for e in edits:
        out.append(src[pos:e.a])
        line = ''.join(out).count('\n') + 1
        out.append(e.text)
        changed.append((line, line + e.text.count('\n')))
        pos = e.b
    out.append(src[pos:])
    open(path, 'w').write(''.join(out))
    return changed


def strip_checks(path):
    """Removes the static_asserts of --check-types and the braces around their
    NORMRT_RETURN_IF_ERROR."""
    while True:
        f = File(path)
        t = f.t
        for k, x in enumerate(t):
            if x.text != 'static_assert' or t[k + 1].text != '(':
                continue
            close = f.match[k + 1]
            if not any(y.kind == 'str' and CHECK_TAG in y.text for y in t[k + 2:close]):
                continue
            semi = close + 1
            a, b = t[k].start, t[semi].end
            src = f.src
            if (t[k - 1].text == '{' and t[semi + 1].text == 'NORMRT_RETURN_IF_ERROR' and
                    t[f.match[semi + 2] + 2].text == '}'):
                inner_end = t[f.match[semi + 2] + 1].end  # the macro's ';'
                new = src[:t[k - 1].start] + src[t[semi + 1].start:inner_end] + \
                    src[t[f.match[semi + 2] + 2].end:]
            else:
                while b < len(src) and src[b] in ' \t':
                    b += 1
                if b < len(src) and src[b] == '\n' and src[:a].rstrip(' \t').endswith('\n'):
                    a = len(src[:a].rstrip(' \t'))
                new = src[:a] + src[b:]
            open(path, 'w').write(new)
            break
        else:
            return


def main():
    args = sys.argv[1:]
    if '--strip-checks' in args:
        for p in args:
            if p != '--strip-checks':
                strip_checks(p)
        return
    check_types = '--check-types' in args
    args = [a for a in args if a != '--check-types']
    rep_path = None
    if '--report' in args:
        i = args.index('--report')
        rep_path = args[i + 1]
        del args[i:i + 2]
    report = []
    for p in args:
        while True:
            rows = []
            ch = process(p, check_types, rows)
            report.extend(rows)
            if not ch:
                break
    out = open(rep_path, 'w') if rep_path else sys.stdout
    for row in report:
        out.write('\t'.join(map(str, row)) + '\n')


if __name__ == '__main__':
    main()
