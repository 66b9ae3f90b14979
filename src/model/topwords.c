/* topwords.c — top-n selection with a min-heap of n entries: O(V log n) per topic. */
#include "model/topwords.h"

/* a ranks below b: smaller value, or equal value and larger id. */
static int ranks_below(const float *row, uint32_t a, uint32_t b)
{
    return row[a] < row[b] || (row[a] == row[b] && a > b);
}

static void sift_down(const float *row, uint32_t *heap, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t low = i, l = 2 * i + 1, r = l + 1;
        if (l < n && ranks_below(row, heap[l], heap[low]))
            low = l;
        if (r < n && ranks_below(row, heap[r], heap[low]))
            low = r;
        if (low == i)
            return;
        uint32_t t = heap[i];
        heap[i] = heap[low];
        heap[low] = t;
        i = low;
    }
}

void lda_top_indices(const float *row, uint32_t V, uint32_t n, uint32_t *out)
{
    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        out[i] = i;
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(row, out, n, i);
    for (uint32_t w = n; w < V; w++) {
        if (ranks_below(row, out[0], w)) {
            out[0] = w;
            sift_down(row, out, n, 0);
        }
    }
    /* Heap sort: repeatedly move the lowest-ranked to the end, leaving best first. */
    for (uint32_t end = n; end-- > 1;) {
        uint32_t t = out[0];
        out[0] = out[end];
        out[end] = t;
        sift_down(row, out, end, 0);
    }
}
