/*
 * render/readme.c's face: the README (readme.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_README_H
#define ARENAFS_RENDER_README_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* A line of the README's list of places: its path and what it shows. */
struct readme_line {
	const char *path;
	const char *about;
};

/* The README: what the tree is (lines: every place it lists, fs/'s table of places
 * gives them) and how to submit. */
void render_readme(struct strbuf *sb, const struct readme_line *lines, size_t n);

#endif
