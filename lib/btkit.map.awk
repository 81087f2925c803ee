# SPDX-License-Identifier: MIT
# btkit.map.awk - write the linker version script of libbtkit.so from
# include/btkit.h: every function the header declares is global, every
# other symbol local.  Generating it at build time keeps the exports equal
# to the header as functions are added; tests/oracle/exports.sh checks the
# result against the shared library and an independent reading of the
# header.  A declaration is a line outside comments and braces whose first
# name followed by "(" starts with bt_; static inline functions have no
# symbol and are skipped.
BEGIN { depth = 0; incomment = 0 }
{
	line = $0
	# Drop comments, also those spanning lines.
	out = ""
	while (line != "") {
		if (incomment) {
			i = index(line, "*/")
			if (!i) { line = ""; break }
			line = substr(line, i + 2); incomment = 0
		} else {
			i = index(line, "/*")
			if (!i) { out = out line; line = ""; break }
			out = out substr(line, 1, i - 1)
			line = substr(line, i + 2); incomment = 1
		}
	}
	line = out
	if (line ~ /^[ \t]*#/)
		next
	if (depth == 0 && line !~ /^[ \t]*static/ &&
	    match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(line, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
		if (name ~ /^bt_/ && !(name in seen)) {
			seen[name] = 1
			names[n++] = name
		}
	}
	depth += gsub(/\{/, "{", line) - gsub(/\}/, "}", line)
}
END {
	print "/* Generated from include/btkit.h by lib/btkit.map.awk. */"
	print "BTKIT_0 {"
	print "global:"
	for (i = 0; i < n; i++)
		print "\t" names[i] ";"
	print "local:"
	print "\t*;"
	print "};"
}
