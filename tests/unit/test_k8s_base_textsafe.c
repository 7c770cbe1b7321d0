/* Tests k8s/base/textsafe.c (one safe line of text from elsewhere) and the places
 * that must use it (issue 33, items 7 and 8): a struct k8s_error's message
 * (k8s/error.c) and the daemon's log (k8s/base/say.c). The `error` files of
 * submit/ and check/ are tested in test_fs_staging.c, why's log tail in
 * test_render_why.c. */
#include "k8s/base/say.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/textsafe.h"
#include "k8s/error.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define FFFD "\xEF\xBF\xBD"

/* textsafe_line of len bytes of s, as a string to compare (freed by the caller). */
static char *safe(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	textsafe_line(&sb, s, len);
	return strbuf_take(&sb);
}

/* The same of a string literal, NUL inside and all. */
#define SAFE(lit) safe(lit, sizeof(lit) - 1)

/* Unicode's bidirectional controls (the Bidi_Control property of PropList.txt),
 * in UTF-8, written out here rather than taken from textsafe.c. */
static const char *const BIDI[] = {
	"\xD8\x9C",                                                    /* U+061C ALM */
	"\xE2\x80\x8E", "\xE2\x80\x8F",                                 /* LRM, RLM */
	"\xE2\x80\xAA", "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE", /* LRE..RLO */
	"\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9",          /* LRI..PDI */
};
#define N_BIDI (sizeof(BIDI) / sizeof(BIDI[0]))

/* No byte below 0x20, no DEL, no C1 control, no bidirectional control, all of it
 * UTF-8: one safe line. */
static int is_one_safe_line(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	int same;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7F || (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
			return 0;
	for (size_t i = 0; i < N_BIDI; i++)
		if (strstr(s, BIDI[i]))
			return 0;
	textsafe_line(&sb, s, strlen(s)); /* valid UTF-8 comes out as it went in */
	same = strcmp(strbuf_str(&sb), s) == 0;
	strbuf_free(&sb);
	return same;
}

TEST(textsafe_turns_every_control_into_a_space)
{
	/* a policy webhook's two lines; SGR colour; an OSC title ended by BEL; a C1 CSI;
	 * NUL, CR, tab, DEL; Unicode's line and paragraph separators */
	static const char in[] = "denied:\n  rule \x1b[31mred\x1b[0m\x1b]0;pwned\x07!\xc2\x9b"
	                         "2J a\0b\r\tc\x7f" "d\xe2\x80\xa8" "e\xe2\x80\xa9";
	char *s = SAFE(in);

	CHECK_STR_EQ(s, "denied:   rule  [31mred [0m ]0;pwned ! 2J a b  c d e ");
	CHECK(is_one_safe_line(s));
	free(s);
}

TEST(textsafe_keeps_utf8_and_replaces_each_byte_that_is_not)
{
	char *s;

	/* é, €, an emoji, and U+0080's neighbours that are not controls (U+00A0) pass */
	s = SAFE("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0");
	CHECK_STR_EQ(s, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0");
	free(s);
	/* Latin-1 é; a stray continuation byte; 0xFF */
	s = SAFE("caf\xe9 \x80 \xff");
	CHECK_STR_EQ(s, "caf" FFFD " " FFFD " " FFFD);
	free(s);
	/* an overlong '/' (C0 AF); a surrogate (ED A0 80); past U+10FFFF (F4 90 80 80):
	 * each byte that begins no character is one U+FFFD, the rest read again */
	s = SAFE("\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80");
	CHECK_STR_EQ(s, FFFD FFFD "|" FFFD FFFD FFFD "|" FFFD FFFD FFFD FFFD);
	free(s);
	/* a character cut short by the end of the text */
	s = SAFE("ok \xe2\x82");
	CHECK_STR_EQ(s, "ok " FFFD FFFD);
	CHECK(is_one_safe_line(s));
	free(s);
}

/* Trojan Source (CVE-2021-42574): an RLO ... PDF pair shows `access denied` for a
 * line that holds `access` + RLO + `deined` ... A log line or an API server's
 * message holding one would read on a terminal as what it is not. */
TEST(textsafe_turns_every_bidirectional_control_into_a_space)
{
	char in[64], want[64], *s;

	for (size_t i = 0; i < N_BIDI; i++) {
		snprintf(in, sizeof(in), "a%sb", BIDI[i]);
		s = safe(in, strlen(in));
		CHECK_STR_EQ(s, "a b");
		free(s);
	}
	/* "admin" shown, "nimda" held: the line reads as it is held */
	s = SAFE("user \xE2\x80\xAE" "nimda\xE2\x80\xAC ok");
	CHECK_STR_EQ(s, "user  nimda  ok");
	CHECK(is_one_safe_line(s));
	free(s);
	/* an isolate around a comment's end, as the paper's example */
	s = SAFE("if x {\xE2\x81\xA6 // check\xE2\x81\xA9 \xE2\x81\xA6 }");
	CHECK_STR_EQ(s, "if x {  // check    }");
	free(s);
	/* their neighbours are no controls: U+200D (ZWJ, inside emoji), U+2029's
	 * neighbour U+202F (narrow no-break space), U+2065 (unassigned), U+206A,
	 * U+061B (Arabic semicolon), and right-to-left letters themselves (Hebrew
	 * alef, Arabic alef): Hebrew and Arabic text keeps its letters */
	snprintf(want, sizeof(want), "%s",
	         "\xE2\x80\x8D \xE2\x80\xAF \xE2\x81\xA5 \xE2\x81\xAA \xD8\x9B \xD7\x90 \xD8\xA7");
	s = safe(want, strlen(want));
	CHECK_STR_EQ(s, want);
	free(s);
	CHECK(textsafe_is_bidi_control(0x202E) && textsafe_is_bidi_control(0x061C));
	CHECK(!textsafe_is_bidi_control(0x2028) && !textsafe_is_bidi_control(0x202F));
}

TEST(textsafe_buf_fits_its_buffer_at_a_character_end)
{
	char buf[8];

	/* U+FFFD takes 3 bytes for 1: the buffer, not the input, is the limit */
	CHECK_STR_EQ(textsafe_line_buf(buf, sizeof(buf), "\xff\xff\xff", 3), FFFD FFFD);
	CHECK_STR_EQ(textsafe_line_buf(buf, sizeof(buf), "ab\xc3\xa9\xc3\xa9\xc3\xa9", 8),
	             "ab\xc3\xa9\xc3\xa9");
	CHECK_STR_EQ(textsafe_line_buf(buf, sizeof(buf), "a\nb", 3), "a b");
	CHECK_STR_EQ(textsafe_line_buf(buf, 1, "abc", 3), "");
	CHECK_STR_EQ(textsafe_line_buf(buf, sizeof(buf), "a\xE2\x81\xA7z", 5), "a z");
}

TEST(textsafe_cut_keeps_characters_whole)
{
	CHECK_INT_EQ(textsafe_cut("abc", 3, 5), 3);
	CHECK_INT_EQ(textsafe_cut("ab\xc3\xa9", 4, 3), 2);          /* not half an é */
	CHECK_INT_EQ(textsafe_cut("\xf0\x9f\x98\x80!", 5, 3), 0); /* nor of an emoji */
	CHECK_INT_EQ(textsafe_cut("a\xe2\x82\xac", 4, 3), 1);
	/* stray continuation bytes are no character: cut near max all the same */
	CHECK_INT_EQ(textsafe_cut("\x80\x80\x80\x80\x80\x80\x80\x80", 8, 6), 3);
}

/* Issue 33: a 422's message as a policy webhook sends it was kept raw. */
TEST(k8s_error_messages_are_one_safe_line)
{
	struct k8s_error e;

	k8s_error_status(&e, 422, "Invalid", "%s",
	                 "admission webhook \"validate.kyverno.svc\" denied the request:\n\n"
	                 "policy x: \x1b[31mno\x1b[0m\x1b]0;t\x07\xff");
	CHECK_STR_EQ(e.message, "admission webhook \"validate.kyverno.svc\" denied the request:  "
	                        "policy x:  [31mno [0m ]0;t " FFFD);
	k8s_error_prefix(&e, "submit/%s: ", "a\nb");
	CHECK(strncmp(e.message, "submit/a b: admission", 21) == 0);
	CHECK(is_one_safe_line(e.message));
	k8s_error_set(&e, EIO, "%s", "\x1b[2Jcleared");
	CHECK_STR_EQ(e.message, " [2Jcleared");
	k8s_error_set(&e, EIO, "%s", "denied \xE2\x80\xAE" "deyolped");
	CHECK_STR_EQ(e.message, "denied  deyolped");
	/* a prefix that pushes the old message's end out cuts it at a character's end:
	 * 2040 bytes of é after 10 of prefix leave room for 2037, half an é */
	k8s_error_set(&e, EIO, "%s", "");
	for (int i = 0; i < 1020; i++)
		strcat(e.message, "\xc3\xa9");
	k8s_error_prefix(&e, "%s", "submit/x: ");
	CHECK_INT_EQ(strlen(e.message), 10 + 2036);
	CHECK(is_one_safe_line(e.message));
}

static char said[2048];

static void keep(int priority, const char *msg)
{
	(void)priority;
	snprintf(said, sizeof(said), "%s", msg);
}

/* Issue 33: the daemon's log kept ESC and BEL from what it quoted. */
TEST(say_prints_one_safe_line)
{
	say_set_sink(keep);
	say(LOG_ERR, "submit/%s refused: %s\n", "x.yaml", "denied:\n\x1b]0;pwned\x07\x1b[31mred\xfe");
	CHECK_STR_EQ(said, "submit/x.yaml refused: denied:  ]0;pwned  [31mred" FFFD);
	say(LOG_ERR, "%s\n", "log \xE2\x81\xA7reversed\xE2\x81\xA9 no more");
	say_set_sink(NULL); /* stderr again */
	CHECK_STR_EQ(said, "log  reversed  no more");
}
