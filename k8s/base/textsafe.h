/*
 * Text from elsewhere (an API server's message, a container's log, a file name)
 * made safe to show as one line: no byte that moves a terminal's cursor, sets
 * its title or colours, rings it, or starts a second line, no character that
 * shows the rest of the line in another order than it is, and only UTF-8.
 *
 * The one sanitizer of the tree's one-line texts (render/text.c's
 * render_put_oneline), of the `error` files of submit/ and check/ (staging.c),
 * of the messages a struct k8s_error carries (k8s/error.c) and of the daemon's
 * own log (say.c); why.c quotes a log with it. Pure, no locks. Tested by
 * tests/unit/test_k8s_base_textsafe.c.
 */
#ifndef ARENAFS_BASE_TEXTSAFE_H
#define ARENAFS_BASE_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/*
 * Appends len bytes of s (NUL included) as one safe line: every C0 control (NUL,
 * newline, tab, ESC, BEL...), DEL, C1 control (U+0080..U+009F, which terminals
 * obey too: CSI is U+009B), Unicode's line and paragraph separators (U+2028,
 * U+2029: a second line to an editor or a browser) and its bidirectional
 * controls (textsafe_is_bidi_control) becomes a space, and every byte that
 * begins no valid UTF-8 character becomes U+FFFD, the replacement character.
 */
void textsafe_line(struct strbuf *sb, const char *s, size_t len);

/* Is the code point one of Unicode's bidirectional controls (the Bidi_Control
 * property: U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)? They
 * reorder what follows them on screen (Trojan Source, CVE-2021-42574). */
bool textsafe_is_bidi_control(uint32_t cp);

/* The same into buf (size > 0 bytes, NUL-terminated; not overlapping s), cut at
 * the end of a character when it does not fit. Returns buf. */
char *textsafe_line_buf(char *buf, size_t size, const char *s, size_t len);

/* Where to cut len bytes of s to keep at most max: max, or less so as not to split
 * a UTF-8 character (by at most 3 bytes: a run of stray continuation bytes is no
 * character to keep whole); len when it fits. */
size_t textsafe_cut(const char *s, size_t len, size_t max);

#endif
