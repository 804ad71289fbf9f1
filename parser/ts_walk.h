/* A pre-order walk over a tree-sitter tree that visits the same nodes, in the same order, as a
 * TSTreeCursor driven by goto_first_child / goto_next_sibling / goto_parent, at a fraction of the
 * cost: the cursor re-derives its parent's alias sequence and re-scans hidden levels on every
 * sibling step, this walker keeps one iterator per level. Written against the internal headers of
 * the pinned tree-sitter runtime (third_party/package.json); tests/ts_walk_test.cpp checks it
 * against the cursor on every fixture. */
#ifndef PERFLINT_TS_WALK_H
#define PERFLINT_TS_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PflWalker PflWalker;

/* A walker standing on `root` (a tree's root node). NULL when out of memory. */
PflWalker *pfl_walker_new(TSNode root);
void pfl_walker_delete(PflWalker *self);

/* The end of the walk. */
#define PFL_WALK_DONE INT32_MIN

/* Moves to the next node in pre-order: into the current node's first child when `descend` is true
 * and it has one, else to the next sibling of the current node or of its nearest ancestor that has
 * one. Returns the change in depth: 1 (a child), 0 (a sibling), -k (the sibling of the ancestor
 * k levels up), or PFL_WALK_DONE. */
int32_t pfl_walker_next(PflWalker *self, bool descend);

/* The node the walker stands on. */
TSNode pfl_walker_node(const PflWalker *self);

/* The field the current node is in its parent (as ts_tree_cursor_current_field_id), 0 if none. */
TSFieldId pfl_walker_field(const PflWalker *self);

/* The children of `node` a TSTreeCursor would visit (only the named ones when `named_only`), in
 * order, without a cursor: up to `capacity` of them are stored in `out`; returns how many there are
 * (call again with room for all when that is more than `capacity`). */
uint32_t pfl_children(TSNode node, bool named_only, TSNode *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
