/*
 * yaml_probe_top_key (see yaml_probe.h): libyaml's events, counted by depth. In
 * the root mapping (depth 1) events alternate key and value; a value that is a
 * mapping or a list opens deeper levels, whose events are skipped until it closes.
 * Linear in the text, and nothing is allocated but libyaml's own buffers.
 *
 * Pure: no I/O. Called by render/jobspec/spec.c; tested through test_jobspec_spec.c.
 */
#include "render/jobspec/yaml_probe.h"

#include <string.h>

#include <yaml.h>

static bool listed(const yaml_event_t *ev, const char *const *keys)
{
	const char *text = (const char *)ev->data.scalar.value;

	for (; *keys; keys++)
		if (strcmp(text, *keys) == 0)
			return true;
	return false;
}

bool yaml_probe_top_key(const char *text, size_t len, const char *const *keys)
{
	yaml_parser_t p;
	int depth = 0;
	bool key_next = true, found = false, done = false;

	if (!yaml_parser_initialize(&p))
		return false;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!found && !done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&p, &ev))
			break;
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			done = depth == 0 && ev.type == YAML_SEQUENCE_START_EVENT;
			if (depth == 1)
				key_next = !key_next;
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			done = --depth == 0;
			break;
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
			done = depth == 0;
			if (depth == 1) {
				found = key_next && ev.type == YAML_SCALAR_EVENT && listed(&ev, keys);
				key_next = !key_next;
			}
			break;
		case YAML_DOCUMENT_END_EVENT:
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return found;
}
