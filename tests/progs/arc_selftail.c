// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * A self-recursive function that clang -O2 ends with a jump to its own
 * first instruction (the recursive tail call made a jump, not a loop: the
 * alloca keeps clang's tail recursion elimination away), as it does for
 * oniguruma's optimize_nodes.
 */
/*
 * By construction: main calls visit(&nodes[0]) 10 times; each goes 9
 * activations deep (8 nodes, then NULL), so visit is entered 90 times,
 * 10 by a call and 80 by its own jump; leaf is called 80 times.
 */
struct node {
	struct node *next;
	int val;
};

static volatile int sink;

__attribute__((noinline)) static void leaf(int v)
{
	sink += v;
}

__attribute__((noinline)) static void touch(const char *p, int n)
{
	for (int i = 0; i < n; i++)
		sink += p[i];
}

__attribute__((noinline)) static void visit(struct node *n)
{
	if (!n)
		return;
	leaf(n->val);
	if (n->val > 100) {	/* never here: the alloca is what matters */
		char *buf = __builtin_alloca(n->val);

		__builtin_memset(buf, 1, n->val);
		touch(buf, n->val);
	}
	visit(n->next);
}

int main(void)
{
	static struct node nodes[8];

	for (int i = 0; i < 8; i++) {
		nodes[i].val = i;
		nodes[i].next = i < 7 ? &nodes[i + 1] : 0;
	}
	for (int r = 0; r < 10; r++)
		visit(&nodes[0]);
	return 0;
}
