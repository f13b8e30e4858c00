# SPDX-License-Identifier: GPL-2.0
# kbuild-objects.awk: estimate how many .o files "make bzImage modules"
# makes for a configured kernel tree, outside scripts/ and tools/.
#
#   awk -v tree=/path/to/linux -v arch=x86 -f kbuild-objects.awk
#
# Used by build-debug-kernel.sh to show the share of a first build done
# (later builds compare with the count the last one left).  It walks the
# kbuild Makefiles the way kbuild descends: from the directories of the
# top-level Kbuild and the core-/libs-/drivers- lists, into each
# "obj-y/obj-m/lib-y += dir/" whose CONFIG_ option is y or m.  In each
# directory it counts the objects of the enabled lines, a composite
# object ("foo-y += a.o b.o") as its parts (plus foo.o if it is a module)
# and a NAME.mod.o per module.  It does not evaluate ifeq/ifdef (both
# branches count) and skips what it cannot expand, so it is an estimate:
# on the debug tier's config it came within two objects of a real build
# in each directory the build had finished, but it leaves out what is
# not an obj-/lib- object (the vDSO, arch/x86/boot, realmode/rm).

# $(CONFIG_FOO) becomes y, m or nothing; $(SRCARCH) the architecture.
function expand(s,   v) {
	while (match(s, /\$\(CONFIG_[A-Za-z0-9_]+\)/)) {
		v = substr(s, RSTART + 2, RLENGTH - 3)
		s = substr(s, 1, RSTART - 1) ((v in conf) ? conf[v] : "") \
		    substr(s, RSTART + RLENGTH)
	}
	gsub(/\$\(SRCARCH\)/, arch, s)
	return s
}

# scan DIR FILE LISTS: read FILE, the Makefile or Kbuild of directory
# DIR ("" for the top).  Variables named LISTS (with -y or -m) list
# objects and subdirectories, relative to DIR for obj/lib and to the top
# for core/libs/drivers; any other NAME-y/-m/-objs lists NAME.o's parts.
function scan(dir, file, lists,   line, full, lhs, rhs, n, i, t, name, p) {
	full = ""
	while ((getline line < file) > 0) {
		if (line ~ /\\$/) {
			full = full substr(line, 1, length(line) - 1) " "
			continue
		}
		line = full line
		full = ""
		sub(/#.*/, "", line)
		if (!match(line, /^[ \t]*[A-Za-z0-9_.$(),-]+[ \t]*(\+=|:=|\?=|=)/))
			continue
		lhs = substr(line, 1, RLENGTH)
		rhs = substr(line, RLENGTH + 1)
		sub(/[ \t]*(\+=|:=|\?=|=)$/, "", lhs)
		sub(/^[ \t]*/, "", lhs)
		lhs = expand(lhs)
		if (lhs ~ /\$/ || lhs !~ /-(y|m|objs)$/)
			continue
		name = lhs
		sub(/-(y|m|objs)$/, "", name)
		n = split(expand(rhs), t, /[ \t]+/)
		for (i = 1; i <= n; i++) {
			if (t[i] == "" || t[i] ~ /\$/)
				continue
			if (name ~ lists && t[i] ~ /\/$/) {
				p = (name ~ /^(obj|lib)$/) ? dir t[i] : t[i]
				if (!(p in seen)) {
					seen[p] = 1
					queue[nq++] = p
				}
			} else if (name ~ lists && t[i] ~ /\.o$/) {
				if (!((dir, t[i]) in obj))
					obj[dir, t[i]] = substr(lhs, length(lhs))
			} else if (t[i] ~ /\.o$/ && !((dir, name, t[i]) in part)) {
				part[dir, name, t[i]] = 1
				parts[dir, name]++
			}
		}
	}
	close(file)
}

BEGIN {
	while ((getline line < (tree "/.config")) > 0)
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=[ym]$/) {
			split(line, kv, "=")
			conf[kv[1]] = kv[2]
		}
	scan("", tree "/Kbuild", "^(obj|lib)$")
	scan("", tree "/Makefile", "^(core|libs|drivers)$")
	scan("", tree "/arch/" arch "/Makefile", "^(core|libs|drivers)$")
	for (q = 0; q < nq; q++) {
		# kbuild reads Kbuild if the directory has one, else Makefile.
		f = tree "/" queue[q] "Kbuild"
		r = (getline line < f)
		close(f)
		if (r < 0)
			f = tree "/" queue[q] "Makefile"
		scan(queue[q], f, "^(obj|lib)$")
	}
	for (k in obj) {
		split(k, kk, SUBSEP)
		name = kk[2]
		sub(/\.o$/, "", name)
		module = obj[k] == "m"
		if ((kk[1], name) in parts)
			total += parts[kk[1], name] + module
		else
			total++
		total += module			# NAME.mod.o
	}
	print total + 0
}
