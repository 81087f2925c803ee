#!/bin/bash
# SPDX-License-Identifier: MIT
# btplot's report in a browser: the page of the bfq/none pgbench pair is
# parsed by python3's html.parser (every element closed in order, one
# html, head and body, five pictures, tables) and by xmllint --html where
# installed (no error but its ignorance of SVG), names nothing a browser
# would fetch (no URL, no src, no href but in-page anchors, no script,
# style sheet or font link), and loads in headless Chromium (Debian's
# chromium, with name resolution off so any fetch would fail) into a
# 1200x3000 screenshot that is not blank: many colours and dark (text,
# axis) pixels, where a blank page has one colour.  Skips with exit 77
# and the reason when chromium or python3 is missing.
set -u
. "$(dirname "$0")/common.bash"
for t in chromium python3; do
	if ! command -v "$t" >/dev/null; then
		echo "$t not installed (Debian packages chromium, python3)"
		exit 77
	fi
done
[ -x "$BIN/btplot" ] || { echo "btplot not built: $BIN/btplot"; exit 77; }
fail=0
html=$tmp/report.html
"$BIN/btplot" --report -o "$html" bfq="$TOP/sample-traces/pgbench-bfq.bin.gz" \
	none="$TOP/sample-traces/pgbench-none.bin.gz" || {
	echo "FAIL: btplot --report: exit $?"; exit 1; }

if ! python3 - "$html" <<'EOF'; then
import sys
from html.parser import HTMLParser

VOID = {'meta', 'br', 'img', 'hr', 'link', 'input', 'source', 'wbr'}

class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.count, self.bad = [], {}, []

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for k, v in attrs:
            v = v or ''
            if k in ('src', 'srcset', 'xlink:href', 'action', 'poster', 'data'):
                self.bad.append('%s %s="%s"' % (tag, k, v))
            if k == 'href' and not v.startswith('#'):
                self.bad.append('%s href="%s"' % (tag, v))
        if tag in ('script', 'link', 'iframe', 'object', 'embed', 'img'):
            self.bad.append('<%s>' % tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.bad.append('</%s> closes <%s>' % (tag, self.stack[-1] if self.stack else ''))
            return
        self.stack.pop()

    def handle_data(self, data):
        for scheme in ('http:', 'https:', 'ftp:', '//'):
            if scheme in data and self.stack and self.stack[-1] == 'style':
                self.bad.append('style names %s' % scheme)

c = Check()
c.feed(open(sys.argv[1], encoding='utf-8').read())
c.close()
if c.stack:
    c.bad.append('left open: ' + ' '.join(c.stack))
for tag, n in (('html', 1), ('head', 1), ('body', 1), ('svg', 5)):
    if c.count.get(tag, 0) != n:
        c.bad.append('%d <%s>, want %d' % (c.count.get(tag, 0), tag, n))
if c.count.get('table', 0) < 11:
    c.bad.append('%d tables, want 11 or more' % c.count.get('table', 0))
for b in c.bad[:10]:
    print('FAIL parse:', b)
sys.exit(1 if c.bad else 0)
EOF
	fail=1
fi
# libxml2's HTML parser as well, where installed: it knows HTML 4 only, so
# the SVG elements are "Tag svg invalid"; any other error is the page's.
if command -v xmllint >/dev/null; then
	xmllint --html --noout "$html" 2>&1 | grep -E '(error|warning) :' |
		grep -v -E ': Tag [a-zA-Z]+ invalid$' | head -3 >"$tmp/xml.err"
	if [ -s "$tmp/xml.err" ]; then
		echo "FAIL xmllint --html:"; cat "$tmp/xml.err"; fail=1
	fi
fi
# What the parsers cannot see: a URL anywhere in the text of the page.
if grep -n -i -o -E '.{0,20}(https?:|ftp:|url\([^#]|@import).{0,20}' "$html" | head -3 | grep .; then
	echo "FAIL: the page names something to fetch"; fail=1
fi

# shot HTML PNG: headless Chromium, its own profile and HOME, no network.
shot() {
	local prof
	prof=$(mktemp -d -p "$tmp") || return 1
	HOME=$prof timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--user-data-dir="$prof" --screenshot="$2" --window-size=1200,3000 \
		"file://$1" >"$tmp/chromium.log" 2>&1
	[ -s "$2" ] || { echo "FAIL: no screenshot of $1"; tail -5 "$tmp/chromium.log"; return 1; }
}
printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>\n' >"$tmp/blank.html"
if shot "$html" "$tmp/report.png" && shot "$tmp/blank.html" "$tmp/blank.png"; then
	read -r w colours dark <<<"$(python3 "$TOP/tests/oracle/pngstat.py" "$tmp/report.png")"
	read -r bw bcolours bdark <<<"$(python3 "$TOP/tests/oracle/pngstat.py" "$tmp/blank.png")"
	echo "report: width ${w:-?}, ${colours:-?} colours, ${dark:-?} dark pixels;" \
		"blank page: ${bcolours:-?} colours, ${bdark:-?} dark"
	if [ "${w:-0}" != 1200 ] || [ "${colours:-0}" -lt 64 ] || [ "${dark:-0}" -lt 1000 ] ||
		[ "${colours:-0}" -le "${bcolours:-0}" ]; then
		echo "FAIL: the screenshot looks blank"; fail=1
	fi
else
	fail=1
fi
[ $fail = 0 ] && echo "ok: report parsed, offline, rendered by Chromium"
exit $fail
