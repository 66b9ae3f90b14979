/* test_strmap.c — the string -> id map: dense ids in insertion order, lookups, growth. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "util/strmap.h"

Test(strmap, ids_are_dense_in_insertion_order)
{
    lda_error err = {0};
    strmap *m = strmap_new(0, &err);
    cr_assert_not_null(m);
    uint32_t id;
    cr_assert_eq(strmap_intern(m, "pear", 4, &id, &err), 0);
    cr_assert_eq(id, 0);
    cr_assert_eq(strmap_intern(m, "apple", 5, &id, &err), 0);
    cr_assert_eq(id, 1);
    cr_assert_eq(strmap_intern(m, "pear", 4, &id, &err), 0);
    cr_assert_eq(id, 0);
    cr_assert_eq(strmap_intern(m, "pearl", 4, &id, &err), 0); /* only 4 bytes: "pear" */
    cr_assert_eq(id, 0);
    cr_assert_eq(strmap_intern(m, "", 0, &id, &err), 0);
    cr_assert_eq(id, 2);
    cr_assert_eq(strmap_size(m), 3);
    cr_assert_str_eq(strmap_key(m, 1), "apple");
    cr_assert_str_eq(strmap_key(m, 2), "");
    cr_assert(strmap_find(m, "apple", 5, &id));
    cr_assert_eq(id, 1);
    cr_assert_not(strmap_find(m, "appl", 4, &id));
    cr_assert_not(strmap_find(m, "plum", 4, &id));
    strmap_free(m);
}

Test(strmap, grows_to_many_keys)
{
    lda_error err = {0};
    strmap *m = strmap_new(10, &err);
    cr_assert_not_null(m);
    char key[32];
    const uint32_t n = 200000;
    for (uint32_t i = 0; i < n; i++) {
        int len = snprintf(key, sizeof key, "w%u", (unsigned)i * 7919u);
        uint32_t id;
        cr_assert_eq(strmap_intern(m, key, (size_t)len, &id, &err), 0);
        cr_assert_eq(id, i);
    }
    cr_assert_eq(strmap_size(m), n);
    for (uint32_t i = 0; i < n; i++) {
        int len = snprintf(key, sizeof key, "w%u", (unsigned)i * 7919u);
        uint32_t id = UINT32_MAX;
        cr_assert(strmap_find(m, key, (size_t)len, &id), "%s", key);
        cr_assert_eq(id, i);
        cr_assert_str_eq(strmap_key(m, i), key);
    }
    cr_assert_not(strmap_find(m, "w1", 2, &(uint32_t){0}));
    strmap_free(m);
}
