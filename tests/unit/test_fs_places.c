/*
 * Tests of fs/base/places.c, the table of the tree's places: every type has a row,
 * rows of one type agree, each directory lists its fixed names once and by name,
 * every file has its renderer, and the derived facts (links, keys, the name that
 * comes and goes) are what the tree shows.
 */
#include "tests/unit/harness.h"

#include <stdio.h>
#include <string.h>

#include "fs/base/places.h"

/* The fixed names of a directory, space-separated, as a listing shows them. */
static const char *children_of(enum fs_type dir, char *buf, size_t size)
{
	const struct place *const *c;
	size_t n = place_children(dir, &c), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", c[i]->name);
	return buf;
}

TEST(fs_places_every_type_has_one_row_and_its_rows_agree)
{
	for (int t = FS_ROOT; t < FS_TYPE_COUNT; t++) {
		const struct place *p = place_of((enum fs_type)t);

		CHECK_INT_EQ(p->type, t);
		/* the second row of a type (jobs/ below namespaces/NS/) says the same */
		for (int parent = FS_NONE; parent < FS_TYPE_COUNT; parent++) {
			const struct place *const *c;
			size_t n = place_children((enum fs_type)parent, &c);

			for (size_t i = 0; i < n; i++) {
				if (c[i]->type != (enum fs_type)t)
					continue;
				CHECK_INT_EQ(c[i]->source, p->source);
				CHECK_INT_EQ(c[i]->flags, p->flags);
				CHECK_INT_EQ(c[i]->view, p->view);
			}
		}
	}
}

TEST(fs_places_list_each_directory_once_by_name)
{
	char buf[512];

	/* The listings users script against, written out by hand so that a row lost or
	 * misnamed fails here: a new file of these directories adds its name (the recipe
	 * of docs/architecture.md names these lines). */
	CHECK_STR_EQ(children_of(FS_ROOT, buf, sizeof(buf)),
		     "README check cluster data jobs namespaces nodes queues runtimes submit");
	CHECK_STR_EQ(children_of(FS_CLUSTER_DIR, buf, sizeof(buf)),
		     "context gpus health list list-all list-all.json list-all.yaml list.json list.yaml "
		     "queues queues.json queues.yaml top top-job top-job.json top-job.yaml top.json top.yaml");
	/* a job's files come from their rows alone: a few that must stay, in order */
	CHECK_STR_CONTAINS(children_of(FS_JOB_DIR, buf, sizeof(buf)),
			   "info info.json info.yaml instances");
	CHECK_STR_CONTAINS(buf, "logs metrics metrics.json metrics.yaml progress progress.json "
	                        "progress.yaml spec.yaml status");
	CHECK_STR_EQ(children_of(FS_QUEUES_DIR, buf, sizeof(buf)), "list list.json list.yaml");
	CHECK_STR_EQ(children_of(FS_POD_DIR, buf, sizeof(buf)),
		     "attempts gpus ip logs logs.previous node status");
	CHECK_STR_EQ(children_of(FS_ATTEMPT_DIR, buf, sizeof(buf)), "info log");
	CHECK_STR_EQ(children_of(FS_POD_ATTEMPTS_DIR, buf, sizeof(buf)), "");
	CHECK_STR_EQ(children_of(FS_NODE_DIR, buf, sizeof(buf)), "gpus info ip role status");
	CHECK_STR_EQ(children_of(FS_NS_DIR, buf, sizeof(buf)), "check data jobs queues submit");
	CHECK_STR_EQ(children_of(FS_JOBS_DIR, buf, sizeof(buf)), "");
	for (int d = FS_NONE; d < FS_TYPE_COUNT; d++) {
		const struct place *const *c;
		size_t n = place_children((enum fs_type)d, &c);

		for (size_t i = 1; i < n; i++)
			CHECK(strcmp(c[i - 1]->name, c[i]->name) < 0);
		for (size_t i = 0; i < n; i++) {
			CHECK(place_of((enum fs_type)d)->flags & PLACE_DIR);
			CHECK(place_child((enum fs_type)d, c[i]->name) == c[i]);
		}
	}
	CHECK(place_child(FS_JOB_DIR, "nonesuch") == NULL);
	CHECK(place_child(FS_JOBS_DIR, "status") == NULL);
}

TEST(fs_places_every_file_has_what_it_needs)
{
	for (int t = FS_ROOT; t < FS_TYPE_COUNT; t++) {
		const struct place *p = place_of((enum fs_type)t);
		/* logs, submit/'s files, code/'s and the trash's are not rendered */
		bool file = !(p->flags & (PLACE_DIR | PLACE_LOG | PLACE_SUBMIT | PLACE_CODE |
					  PLACE_TRASH));

		/* every member of the union is a function pointer at the same place */
		CHECK(!file || p->render.text != NULL);
		CHECK(!(p->flags & PLACE_COMES_AND_GOES) || p->when != PLACE_WHEN_ALWAYS);
		/* render_job_mtime reads the pods of every job file */
		CHECK(p->source != SRC_JOB || !file || (p->view & VIEW_PODS));
	}
}

TEST(fs_places_derive_what_the_tree_shows)
{
	const struct place *p;
	char key[128];
	struct fs_node n = FS_NODE_INIT;

	CHECK_INT_EQ(place_nlink(FS_ROOT), 10);      /* ., .. and eight directories */
	CHECK_INT_EQ(place_nlink(FS_JOB_DIR), 3);    /* instances/ */
	CHECK_INT_EQ(place_nlink(FS_NS_DIR), 7);     /* check/, data/, jobs/, queues/, submit/ */
	CHECK_INT_EQ(place_nlink(FS_POD_DIR), 3);    /* attempts/ */
	CHECK_INT_EQ(place_nlink(FS_POD_ATTEMPTS_DIR), 1);   /* one per attempt */
	CHECK_INT_EQ(place_nlink(FS_ATTEMPT_DIR), 2);
	CHECK_INT_EQ(place_nlink(FS_JOBS_DIR), 1);   /* one per job: "unknown" */
	CHECK_INT_EQ(place_nlink(FS_SUBMIT_DIR), 2);
	CHECK_INT_EQ(place_nlink(FS_CHECK_DIR), 2);
	/* bit i of the mask: the i-th child comes and goes (code, tensorboard_url, ...) */
	for (int d = FS_NONE; d < FS_TYPE_COUNT; d++) {
		const struct place *const *c;
		size_t n = place_children((enum fs_type)d, &c);
		unsigned want = 0;

		for (size_t i = 0; i < n; i++)
			if (c[i]->flags & PLACE_COMES_AND_GOES)
				want |= 1u << i;
		CHECK_INT_EQ(place_optional_mask((enum fs_type)d), want);
	}
	CHECK(place_optional_mask(FS_JOB_DIR) != 0);       /* code, tensorboard_url */
	CHECK_INT_EQ(place_optional_mask(FS_NODE_DIR), 0);
	p = place_child(FS_JOB_DIR, "code");
	CHECK(p && p->type == FS_CODE_DIR && (p->flags & PLACE_COMES_AND_GOES) && p->when == PLACE_WHEN_CODE);
	/* below code/: the annotation's names, directories in directories */
	CHECK(place_object_child(FS_CODE_DIR)->type == FS_CODE_SUBDIR);
	CHECK(place_object_child(FS_CODE_SUBDIR)->type == FS_CODE_SUBDIR);
	CHECK_INT_EQ(place_nlink(FS_CODE_DIR), 1);
	CHECK_INT_EQ(place_nlink(FS_CODE_SUBDIR), 1);
	CHECK(fs_type_is_code(FS_CODE_FILE) && !fs_type_is_dir(FS_CODE_FILE) &&
	      fs_type_is_dir(FS_CODE_SUBDIR) && !fs_type_is_code(FS_JOB_DIR));
	/* rm -r jobs/NAME walks code/ too */
	CHECK(fs_type_in_job(FS_CODE_DIR) && fs_type_in_job(FS_CODE_SUBDIR));
	CHECK(place_object_child(FS_JOBS_DIR)->type == FS_JOB_DIR);
	CHECK(place_object_child(FS_JOB_DIR) == NULL);
	CHECK(fs_type_is_dir(FS_INSTANCES_DIR) && !fs_type_is_dir(FS_JOB_STATUS));
	CHECK(fs_type_in_job(FS_POD_DIR) && !fs_type_in_job(FS_POD_STATUS) &&
	      !fs_type_in_job(FS_JOBS_DIR));
	CHECK(fs_type_is_log(FS_JOB_LOGS) && fs_type_is_volatile(FS_JOB_INFO) &&
	      fs_type_is_submit(FS_SUBMIT_FILE) && !fs_type_is_submit(FS_ROOT));
	/* the trash is trash.c's from its top down; its top is not one of root's fixed
	 * names (it is there once made), nor an object child (root's nlink stays) */
	for (int t = FS_TRASH_DIR; t <= FS_TRASH_INFO_FILE; t++)
		CHECK(fs_type_is_trash((enum fs_type)t));
	CHECK(!fs_type_is_trash(FS_ROOT) && !fs_type_is_trash(FS_JOBS_DIR));
	CHECK(place_object_child(FS_ROOT) == NULL);
	CHECK(place_child(FS_TRASH_DIR, "files")->type == FS_TRASH_FILES_DIR);
	CHECK(place_child(FS_TRASH_DIR, "info")->type == FS_TRASH_INFO_DIR);
	CHECK(place_child(FS_TRASH_DIR, "expunged")->type == FS_TRASH_EXPUNGED_DIR);
	CHECK(place_object_child(FS_TRASH_FILES_DIR)->type == FS_TRASH_ENTRY);
	CHECK(place_object_child(FS_TRASH_INFO_DIR)->type == FS_TRASH_INFO_FILE);
	CHECK(place_child(FS_TRASH_ENTRY, "spec.yaml")->type == FS_TRASH_SPEC);

	n.type = FS_JOB_STATUS;
	n.ns = "team";
	n.kind = 2;
	n.job = "mnist";
	n.pod = "mnist-worker-0";
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "job/team/2/mnist");
	n.type = FS_CODE_FILE;       /* filed under its job: a changed annotation is seen */
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "job/team/2/mnist");
	n.type = FS_POD_IP;
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "pod/team/mnist-worker-0");
	n.type = FS_ATTEMPT_INFO;    /* an attempt is its pod's: a restart refreshes it */
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "pod/team/mnist-worker-0");
	CHECK(place_object_child(FS_POD_ATTEMPTS_DIR)->type == FS_ATTEMPT_DIR);
	CHECK(fs_type_in_job(FS_ATTEMPT_DIR) && fs_type_in_job(FS_POD_ATTEMPTS_DIR) &&
	      fs_type_is_log(FS_ATTEMPT_LOG) && fs_type_is_volatile(FS_ATTEMPT_INFO));
	n.type = FS_JOBS_DIR;
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "jobs/team");
	n.type = FS_DATA_LIST;       /* a namespace's claims: one key for data/ and its list */
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "data/team");
	CHECK(place_of(FS_DATA_DIR)->source == SRC_DATA && fs_type_is_volatile(FS_DATA_LIST));
	n.type = FS_README;
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "");
	place_key(key, sizeof(key), SRC_NODE, NULL, 0, "gpu-1");
	CHECK_STR_EQ(key, "node/gpu-1");
	/* the tables of jobs: the mount's namespace's (list, top-job), every namespace's */
	n.type = FS_CLUSTER_LIST;
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "jobtable/team");
	CHECK(place_of(FS_CLUSTER_TOP_JOB)->source == SRC_NS_JOBS);
	n.type = FS_CLUSTER_LIST_ALL;
	place_node_key(&n, key, sizeof(key));
	CHECK_STR_EQ(key, "jobtable");
	CHECK(fs_type_is_volatile(FS_CLUSTER_LIST) && fs_type_is_volatile(FS_CLUSTER_TOP_JOB) &&
	      fs_type_is_volatile(FS_CLUSTER_LIST_ALL) && !fs_type_is_volatile(FS_CLUSTER_TOP));
}

TEST(fs_places_readme_lists_every_file_of_a_job)
{
	const struct readme_line *lines;
	size_t n = place_readme(&lines);
	const struct place *const *c;
	size_t nc = place_children(FS_JOB_DIR, &c);
	char path[128];

	/* every file and code/ of a job's directory is in the README, by its row */
	for (size_t i = 0; i < nc; i++) {
		bool found = false;

		if (c[i]->type == FS_INSTANCES_DIR)
			continue;        /* shown by instances/POD/ */
		CHECK(c[i]->about != NULL);
		place_path(c[i], path, sizeof(path));
		for (size_t k = 0; k < n; k++)
			found = found || strcmp(lines[k].path, path) == 0;
		CHECK(found);
	}
	place_path(place_child(FS_JOB_DIR, "status"), path, sizeof(path));
	CHECK_STR_EQ(path, "jobs/NAME/status");
	place_path(place_object_child(FS_INSTANCES_DIR), path, sizeof(path));
	CHECK_STR_EQ(path, "jobs/NAME/instances/POD/");
	place_path(place_child(FS_NS_DIR, "submit"), path, sizeof(path));
	CHECK_STR_EQ(path, "namespaces/NS/submit/");
	CHECK_STR_EQ(lines[0].path, "check/");
}
