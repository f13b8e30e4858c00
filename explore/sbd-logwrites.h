/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log format of the kernel's dm-log-writes target
 * (Documentation/admin-guide/device-mapper/log-writes.rst), as
 * sbd-import reads it and the tests' sbd-logreplay too: at byte 0 a
 * super block, then per entry one sectorsize block holding the entry
 * (and a mark's name after it), then, unless a discard, its data.
 */
#ifndef SBD_LOGWRITES_H
#define SBD_LOGWRITES_H

#include <stdint.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_FLUSH	(1 << 0)
#define LW_FUA		(1 << 1)
#define LW_DISCARD	(1 << 2)
#define LW_MARK		(1 << 3)

struct lw_super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

#endif
