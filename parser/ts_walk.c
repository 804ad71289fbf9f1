/* See ts_walk.h. Compiled with the tree-sitter runtime's own sources on the include path. */
#include "parser/ts_walk.h"

#include <stdlib.h>

#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

/* One level of the walk: an iterator over the children of `owner`, and what it yielded last. */
typedef struct {
  const Subtree *owner;
  const TSSymbol *aliases; /* the owner's alias sequence (may be NULL) */
  Length next_position;    /* where the next child starts (after its padding) */
  uint32_t next_index;
  uint32_t next_structural;
  bool owner_visible;
  /* the child last yielded */
  const Subtree *child;
  Length child_position;
  uint32_t child_structural;
  bool child_extra;
} Level;

struct PflWalker {
  const TSTree *tree;
  const TSLanguage *language;
  Level *levels;
  uint32_t size, capacity;
  /* the current node */
  const Subtree *node;
  Length position;
  TSSymbol alias;
};

PflWalker *pfl_walker_new(TSNode root) {
  PflWalker *self = calloc(1, sizeof(PflWalker));
  if (!self) return NULL;
  self->tree = root.tree;
  self->language = root.tree ? root.tree->language : NULL;
  self->node = (const Subtree *)root.id;
  self->position = (Length){root.context[0], {root.context[1], root.context[2]}};
  self->alias = (TSSymbol)root.context[3];
  self->capacity = 32;
  self->levels = malloc(self->capacity * sizeof(Level));
  if (!self->levels) {
    free(self);
    return NULL;
  }
  return self;
}

void pfl_walker_delete(PflWalker *self) {
  if (!self) return;
  free(self->levels);
  free(self);
}

static inline bool push(PflWalker *self, const Subtree *owner, Length position, bool visible) {
  if (self->size == self->capacity) {
    uint32_t capacity = self->capacity * 2;
    Level *grown = realloc(self->levels, capacity * sizeof(Level));
    if (!grown) return false;
    self->levels = grown;
    self->capacity = capacity;
  }
  Level *l = &self->levels[self->size++];
  l->owner = owner;
  l->aliases = ts_language_alias_sequence(self->language, owner->ptr->production_id);
  l->next_position = position;
  l->next_index = 0;
  l->next_structural = 0;
  l->owner_visible = visible;
  l->child = NULL;
  return true;
}

int32_t pfl_walker_next(PflWalker *self, bool descend) {
  if (!self->node) return PFL_WALK_DONE;
  int32_t delta = 0;
  if (descend && ts_subtree_child_count(*self->node) > 0) {
    if (!push(self, self->node, self->position, true)) return PFL_WALK_DONE;
    delta = 1;
  }
  while (self->size > 0) {
    Level *l = &self->levels[self->size - 1];
    const Subtree owner = *l->owner;
    const uint32_t count = owner.ptr->child_count;
    if (l->next_index == count) {
      if (l->owner_visible) --delta;
      --self->size;
      continue;
    }
    const Subtree *children = ts_subtree_children(owner);
    const Subtree *child = &children[l->next_index];
    const bool extra = ts_subtree_extra(*child);
    bool visible = ts_subtree_visible(*child);
    TSSymbol alias = 0;
    l->child = child;
    l->child_position = l->next_position;
    l->child_extra = extra;
    l->child_structural = l->next_structural;
    if (!extra) {
      if (l->aliases) {
        alias = l->aliases[l->next_structural];
        visible |= alias != 0;
      }
      l->next_structural++;
    }
    l->next_position = length_add(l->next_position, ts_subtree_size(*child));
    l->next_index++;
    if (l->next_index < count)
      l->next_position = length_add(l->next_position, ts_subtree_padding(children[l->next_index]));
    if (visible) {
      self->node = child;
      self->position = l->child_position;
      self->alias = alias;
      return delta;
    }
    if (ts_subtree_visible_child_count(*child) > 0) {
      const Length at = l->child_position;
      if (!push(self, child, at, false)) return PFL_WALK_DONE;
    }
  }
  self->node = NULL;
  return PFL_WALK_DONE;
}

TSNode pfl_walker_node(const PflWalker *self) {
  return ts_node_new(self->tree, self->node, self->position, self->alias);
}

TSFieldId pfl_walker_field(const PflWalker *self) {
  /* As ts_tree_cursor_current_field_id: from the current node up through hidden levels, the first
   * non-inherited field its parent's production gives the child's structural index. */
  for (uint32_t i = self->size; i-- > 0;) {
    const Level *l = &self->levels[i];
    if (i != self->size - 1 && self->levels[i + 1].owner_visible) break;
    if (l->child_extra) break;
    const TSFieldMapEntry *map, *end;
    ts_language_field_map(self->language, l->owner->ptr->production_id, &map, &end);
    for (; map < end; map++)
      if (!map->inherited && map->child_index == l->child_structural) return map->field_id;
  }
  return 0;
}

/* Recursion only through hidden nodes: their nesting is the grammar's (and a repetition's balanced
 * tree, logarithmic), not the input's. */
static void collect_children(const TSTree *tree, Subtree owner, Length position, bool named_only, TSNode *out,
                             uint32_t capacity, uint32_t *count) {
  const TSLanguage *language = tree->language;
  const uint32_t n = owner.ptr->child_count;
  const Subtree *children = ts_subtree_children(owner);
  const TSSymbol *aliases = ts_language_alias_sequence(language, owner.ptr->production_id);
  uint32_t structural = 0;
  Length at = position;
  for (uint32_t i = 0; i < n; i++) {
    const Subtree *child = &children[i];
    if (i > 0) at = length_add(at, ts_subtree_padding(*child));
    bool visible = ts_subtree_visible(*child);
    TSSymbol alias = 0;
    if (!ts_subtree_extra(*child)) {
      if (aliases) {
        alias = aliases[structural];
        visible |= alias != 0;
      }
      structural++;
    }
    if (visible) {
      const bool named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(*child);
      if (!named_only || named) {
        if (*count < capacity) out[*count] = ts_node_new(tree, child, at, alias);
        (*count)++;
      }
    } else if (ts_subtree_visible_child_count(*child) > 0) {
      collect_children(tree, *child, at, named_only, out, capacity, count);
    }
    at = length_add(at, ts_subtree_size(*child));
  }
}

uint32_t pfl_children(TSNode node, bool named_only, TSNode *out, uint32_t capacity) {
  if (!node.id || !node.tree) return 0;
  const Subtree *self = (const Subtree *)node.id;
  if (ts_subtree_child_count(*self) == 0) return 0;
  uint32_t count = 0;
  const Length position = {node.context[0], {node.context[1], node.context[2]}};
  collect_children(node.tree, *self, position, named_only, out, capacity, &count);
  return count;
}
