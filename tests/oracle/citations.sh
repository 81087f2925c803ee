#!/bin/bash
# SPDX-License-Identifier: MIT
# Every citation of a man page section in the tree names a section that
# exists, so a reader of the code can look each definition up here:
# `btkit(7) "Slice wait"` in code, tests and docs, and in mdoc pages an
# `.Xr btkit 7` line followed by `.Dq Slice wait`, must find `.Sh` or
# `.Ss Slice wait` in man/btkit.7 (pages of other programs are not ours to
# check); every `.Sx X` must find X in its own page.  Nothing may cite
# the design brief the project was started from instead.  The checker is
# first run on a file with dangling citations, which it must reject, so
# that this test cannot pass by finding nothing.
set -u
rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check FILE...: print each dangling citation as FILE:LINE: what, then
# "N citations"; exit 1 when one dangles.  Pages are looked up in man/.
check() {
	perl -e '
	use strict; use warnings;
	my (%sec, $bad, $n);
	sub sections {
		my ($page) = @_;
		return $sec{$page} if $sec{$page};
		my %s;
		if (open(my $f, "<", "man/$page")) {
			while (<$f>) {
				next unless /^\.S[hs]\s+(.*?)\s*$/;
				(my $t = $1) =~ s/"//g;
				$s{$t} = 1;
			}
		}
		return $sec{$page} = \%s;
	}
	sub title {
		my ($t) = @_;
		$t =~ s/\\&//g;
		$t =~ s/"//g;
		$t =~ s/(\s+[.,;:)\]]+)+\s*$//;
		$t =~ s/\s+$//;
		return $t;
	}
	sub cite {
		my ($where, $page, $t) = @_;
		$n++;
		return if sections($page)->{$t};
		print "$where: $page has no section \"$t\"\n";
		$bad = 1;
	}
	for my $file (@ARGV) {
		open(my $f, "<", $file) or next;
		my $mdoc = $file =~ m{(^|/)man/[^/]+\.[0-9]$};
		(my $own = $file) =~ s{.*/}{};
		my $xr;
		while (my $line = <$f>) {
			my $where = "$file:$.";
			while ($line =~ /\b([a-z][a-z0-9_-]*)\(([0-9])\) "([^"]+)"/g) {
				cite($where, "$1.$2", $3) if -f "man/$1.$2";
			}
			next unless $mdoc;
			if ($line =~ /^\.Sx\s+(.*)$/) {
				cite($where, $own, title($1));
			}
			if (defined $xr && $line =~ /^\.Dq\s+(.*)$/) {
				cite($where, $xr, title($1));
			}
			$xr = $line =~ /^\.Xr\s+(\S+)\s+([0-9])\b/ && -f "man/$1.$2" ?
			      "$1.$2" : undef;
		}
	}
	print "", ($n // 0), " citations\n";
	exit($bad ? 1 : 0);
	' -- "$@"
}

# The checker must catch a dangling citation of each form.
mkdir -p "$tmp/man"
cat >"$tmp/fake.c" <<'EOF'
/* see btkit(7) "No such section" and btkit(7) "Slice wait" */
EOF
cat >"$tmp/man/fake.7" <<'EOF'
.Sh NAME
.Sh SEE ALSO
.Xr btkit 7 ,
.Dq Nor this one .
.Sx NAME
.Sx Missing here
EOF
out=$( (cd "$tmp" && cp "$OLDPWD/man/btkit.7" man/ && check fake.c man/fake.7) )
if [ $? -eq 0 ] || [ "$(grep -c 'has no section' <<<"$out")" -ne 3 ]; then
	echo "the checker missed dangling citations:"; echo "$out"; rc=1
fi

# Every file of the tree but this one, whose dangling citations above are
# there on purpose.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files | grep -vx 'tests/oracle/citations\.sh')
else
	mapfile -t files < <(find . -path ./build -prune -o -type f -print |
		sed 's|^\./||' | grep -vx 'tests/oracle/citations\.sh')
fi
out=$(check "${files[@]}")
status=$?
echo "$out"
[ $status -eq 0 ] || rc=1
if [ "$(tail -1 <<<"$out" | cut -d' ' -f1)" -lt 10 ]; then
	echo "too few citations found: the checker is not looking"; rc=1
fi

# The brief outside the repository is not a reference (the brackets keep
# this file from naming it too).
hits=$(grep -n -I -E 'D[E]SIGN|F[O]RMAT\.md|S[T]YLE\.md|\.\.[/]shared' \
	"${files[@]}" 2>/dev/null)
if [ -n "$hits" ]; then
	echo "cites what is not in the repository:"; echo "$hits"; rc=1
fi
exit $rc
