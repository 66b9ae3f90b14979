/* test_matrix_file.c — the model's arrays as .npy files: the header NumPy's format 1.0
 * prescribes, read back, the older .bin files still read, malformed headers refused, and
 * numpy.load itself (skipped where no Python has numpy). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/matrix_file.h"

static char *write_bytes(const char *dir, const char *name, const void *bytes, size_t n)
{
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
    return path;
}

Test(matrix_file, npy_header_is_numpy_format_1_0_aligned_to_64_bytes)
{
    char *dir = test_tmpdir(), *path = NULL;
    cr_assert(asprintf(&path, "%s/m.npy", dir) > 0);
    const float m[6] = {1, 2, 3, 4, 5, 6.5f};
    lda_error err = {0};
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_F32, 2, 3, m, &err), 0, "%s", err.msg);
    char *bytes = test_read_file(path);
    cr_assert_eq(memcmp(bytes, "\x93NUMPY\x01\x00", 8), 0);
    size_t header_len = (unsigned char)bytes[8] | (size_t)(unsigned char)bytes[9] << 8;
    cr_assert_eq((10 + header_len) % 64, 0, "data must start at a multiple of 64 bytes");
    cr_assert_eq(bytes[10 + header_len - 1], '\n');
    cr_assert(strstr(bytes + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), "%s", bytes + 10);
    cr_assert_eq(memcmp(bytes + 10 + header_len, m, sizeof m), 0);
    free(bytes);

    float *back = NULL;
    uint64_t rows, cols;
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_F32, &rows, &cols, (void **)&back, &err), 0, "%s", err.msg);
    cr_assert(rows == 2 && cols == 3 && memcmp(back, m, sizeof m) == 0);
    free(back);
    /* A vector is written with shape (n,) and read as n × 1. */
    const uint32_t v[3] = {7, 8, 9};
    cr_assert_eq(lda_matrix_write(path, LDA_MATRIX_U32, 3, 0, v, &err), 0, "%s", err.msg);
    bytes = test_read_file(path);
    cr_assert(strstr(bytes + 10, "'descr': '<u4'") && strstr(bytes + 10, "'shape': (3,)"), "%s", bytes + 10);
    free(bytes);
    uint32_t *vb = NULL;
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_U32, &rows, &cols, (void **)&vb, &err), 0, "%s", err.msg);
    cr_assert(rows == 3 && cols == 1 && memcmp(vb, v, sizeof v) == 0);
    free(vb);
    /* The element type must be the one asked for. */
    cr_assert_neq(lda_matrix_read(path, LDA_MATRIX_F32, &rows, &cols, (void **)&vb, &err), 0);
    cr_assert(strstr(err.msg, "float32") && strstr(err.msg, "m.npy"), "%s", err.msg);
    free(path);
    test_rmdir(dir);
    free(dir);
}

Test(matrix_file, reads_headers_numpy_may_write_and_refuses_what_it_cannot_read)
{
    char *dir = test_tmpdir();
    /* Keys in another order, version 2.0 (uint32 header length), no trailing comma. */
    const char h2[] = "{'shape': (2,), 'fortran_order': False, 'descr': '<u4'}\n";
    unsigned char buf[256] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, sizeof h2 - 1, 0, 0, 0};
    memcpy(buf + 12, h2, sizeof h2 - 1);
    const uint32_t vals[2] = {41, 42};
    memcpy(buf + 12 + sizeof h2 - 1, vals, sizeof vals);
    char *path = write_bytes(dir, "v2.npy", buf, 12 + sizeof h2 - 1 + sizeof vals);
    uint32_t *data = NULL;
    uint64_t rows, cols;
    lda_error err = {0};
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_U32, &rows, &cols, (void **)&data, &err), 0, "%s", err.msg);
    cr_assert(rows == 2 && cols == 1 && data[0] == 41 && data[1] == 42);
    free(data);
    free(path);

    static const char *const bad[][2] = {
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }\n", "float32"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }\n", "Fortran"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }\n", "shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", "scalar"},
        {"{'descr': '<f4', 'fortran_order': False}\n", "lacks"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = strlen(bad[i][0]);
        unsigned char b[256] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)n, 0};
        memcpy(b + 10, bad[i][0], n);
        memset(b + 10 + n, 0, 8);
        path = write_bytes(dir, "bad.npy", b, 10 + n + 8);
        float *f = NULL;
        cr_assert_neq(lda_matrix_read(path, LDA_MATRIX_F32, &rows, &cols, (void **)&f, &err), 0, "%s", bad[i][0]);
        cr_assert(strstr(err.msg, bad[i][1]) && strstr(err.msg, "bad.npy"), "%s: %s", bad[i][0], err.msg);
        cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
        free(path);
    }
    path = write_bytes(dir, "junk.npy", "hello, world, not a matrix", 26);
    float *f = NULL;
    cr_assert_neq(lda_matrix_read(path, LDA_MATRIX_F32, &rows, &cols, (void **)&f, &err), 0);
    cr_assert(strstr(err.msg, "bad header"), "%s", err.msg);
    free(path);
    test_rmdir(dir);
    free(dir);
}

Test(matrix_file, save_replaces_an_older_bin_and_load_prefers_npy)
{
    char *dir = test_tmpdir(), *path = NULL;
    /* An ldagpu format-1 .bin: magic, version 1, type 2 (uint32), 2 × 1, reserved, values. */
    unsigned char bin[64 + 8] = {'L', 'D', 'A', 'G', 'P', 'U', 'M', 'X', 1, 0, 0, 0, 2, 0, 0, 0, 2};
    bin[24] = 1;
    const uint32_t old[2] = {5, 6}, fresh[2] = {7, 8};
    memcpy(bin + 64, old, sizeof old);
    free(write_bytes(dir, "z.bin", bin, sizeof bin));
    uint32_t *data = NULL;
    uint64_t rows, cols;
    lda_error err = {0};
    cr_assert_eq(lda_matrix_load(dir, "z", LDA_MATRIX_U32, &rows, &cols, (void **)&data, &path, &err), 0, "%s",
                 err.msg);
    cr_assert(strstr(path, "z.bin") && rows == 2 && cols == 1 && data[0] == 5 && data[1] == 6, "%s", path);
    free(data);
    free(path);
    cr_assert_eq(lda_matrix_save(dir, "z", LDA_MATRIX_U32, 2, 0, fresh, &err), 0, "%s", err.msg);
    cr_assert(asprintf(&path, "%s/z.bin", dir) > 0);
    cr_assert(!test_read_file(path), "the old z.bin must be gone once z.npy is written");
    free(path);
    cr_assert_eq(lda_matrix_load(dir, "z", LDA_MATRIX_U32, &rows, &cols, (void **)&data, &path, &err), 0, "%s",
                 err.msg);
    cr_assert(strstr(path, "z.npy") && data[0] == 7 && data[1] == 8, "%s", path);
    free(data);
    free(path);
    cr_assert_neq(lda_matrix_load(dir, "phi", LDA_MATRIX_F32, &rows, &cols, (void **)&data, &path, &err), 0);
    cr_assert(strstr(err.msg, "phi.npy"), "a missing array is named by its .npy name: %s", err.msg);
    free(path);
    test_rmdir(dir);
    free(dir);
}

/* numpy.load reads every array of a trained model folder as it is, no offset given. */
Test(matrix_file, numpy_loads_every_array_of_a_model_folder)
{
    const char *python = test_python_with("numpy");
    if (!python)
        cr_skip_test("no Python with numpy (scripts/install-deps.sh --test installs it)");
    char *dir = test_tmpdir(), args[2048], *out = NULL;
    snprintf(args, sizeof args, "train '%s/tests/data/v1-corpus.txt' -K 3 -n 5 -q --device cpu -o '%s/m'",
             test_root(), dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    static const char script[] =
        "import sys, numpy as np\n"
        "d = sys.argv[1]\n"
        "phi, theta = np.load(d + '/phi.npy'), np.load(d + '/theta.npy')\n"
        "n_k, z = np.load(d + '/topic_tokens.npy'), np.load(d + '/z.npy')\n"
        "conf = dict(l.split(' = ', 1) for l in open(d + '/model.conf').read().splitlines() if ' = ' in l)\n"
        "K, V, D, N = (int(conf[k]) for k in ('topics', 'vocabulary', 'documents', 'tokens'))\n"
        "assert phi.dtype == np.float32 and phi.shape == (K, V), phi.shape\n"
        "assert theta.dtype == np.float32 and theta.shape == (D, K), theta.shape\n"
        "assert n_k.dtype == np.uint32 and n_k.shape == (K,), n_k.shape\n"
        "assert z.dtype == np.uint32 and z.shape == (N,), z.shape\n"
        "assert np.allclose(phi.sum(axis=1), 1, atol=1e-4) and np.allclose(theta.sum(axis=1), 1, atol=1e-4)\n"
        "assert (np.bincount(z, minlength=K) == n_k).all()\n"
        "print('numpy ok', K, V, D, N)\n";
    snprintf(args, sizeof args, "'%s/m'", dir);
    int rc = test_run_python(python, script, args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "numpy ok 3 36 41"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}
