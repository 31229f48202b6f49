#!/usr/bin/python3
"""Plain vectorised numpy/scipy implementation of the non-private spectral LDA fit (SPEC §3-§6, §12).

    numpy_spectral.py --corpus DIR --topics K [--truth FILE] [--repeats R] [--alpha0 A] [--seed S]

It is the reference the C++ benchmark is compared with, written from SPEC.md (not from the C++
code): the unbiased M̂2, the whitened tensor T̂ = M̂3(W,W,W) computed from the documents, the robust
tensor power method (L = max(10, 2*ceil(k ln k)), R = 100, tol 1e-10), unwhitening, Euclidean
projection onto the simplex, Hungarian matching on l2 (scipy's linear_sum_assignment) and the mean
l1 / l2 / alpha errors. Prints one JSON line with the median fit time (after loading) and the errors.
"""
import argparse
import json
import math
import os
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse.linalg import LinearOperator, eigsh

DENSE_EIGEN_LIMIT = 1000  # the same switch as the C++ (kDenseEigenLimit)
BLOCK_DOUBLES = 1 << 22   # rows of Khatri-Rao products are built in blocks of ~32 MiB


def read_uci(path):
    """docword.txt -> CSR counts (documents with fewer than 3 tokens dropped, SPEC §1)."""
    docword = os.path.join(path, "docword.txt") if os.path.isdir(path) else path
    with open(docword, "r") as f:
        n_docs = int(f.readline())
        n_words = int(f.readline())
        f.readline()  # NNZ
        data = np.loadtxt(f, dtype=np.int64, ndmin=2)
    counts = sp.coo_matrix((data[:, 2].astype(np.float64), (data[:, 0] - 1, data[:, 1] - 1)),
                           shape=(n_docs, n_words)).tocsr()  # duplicates are summed
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    keep = lengths >= 3
    return counts[keep], lengths[keep], int((~keep & (lengths > 0)).sum())


def read_truth(path):
    with open(path) as f:
        t = json.load(f)
    return np.asarray(t["alpha"], dtype=float), np.asarray(t["topics"], dtype=float).T  # d x k


def constants(a0):
    return a0 / (a0 + 1), -a0 / (a0 + 2), 2 * a0 * a0 / ((a0 + 1) * (a0 + 2))


def second_moment_parts(C, l, a0):
    """M̂2 = Cᵀ diag(w) C − diag(g) − r S1 S1ᵀ: the SPEC §3 estimator with S2 and Σ M̃1M̃1ᵀ expanded."""
    N = C.shape[0]
    a, _, _ = constants(a0)
    pair = 1.0 / (N * l * (l - 1))
    w = pair + a / (N * (N - 1) * l * l)
    g = C.T @ pair
    s1 = C.T @ (1.0 / l)
    return w, g, s1, a / (N * (N - 1))


def top_eigenpairs(C, l, a0, k):
    w, g, s1, r = second_moment_parts(C, l, a0)
    d = C.shape[1]
    if d <= DENSE_EIGEN_LIMIT:
        Cw = sp.diags(np.sqrt(w)) @ C
        M2 = (Cw.T @ Cw).toarray()
        M2[np.diag_indices(d)] -= g
        M2 -= r * np.outer(s1, s1)
        vals, vecs = np.linalg.eigh(M2)
        order = np.argsort(vals)[::-1]
        return vals[order[:k + 1]], vecs[:, order[:k]], "dense numpy.linalg.eigh"
    Ct = C.T.tocsr()

    def matvec(x):
        x = np.asarray(x).reshape(-1)
        return Ct @ (w * (C @ x)) - g * x - (r * (s1 @ x)) * s1

    op = LinearOperator((d, d), matvec=matvec, dtype=np.float64)
    v0 = np.ones(d) / math.sqrt(d)  # deterministic start
    vals, vecs = eigsh(op, k=k + 1, which="LA", tol=1e-12, v0=v0, ncv=min(d, max(2 * (k + 1) + 1, k + 21)))
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order[:k]], "scipy eigsh (ARPACK, matrix-free)"


def gram3(X, weights):
    """Σ_r weights_r x_r⊗x_r⊗x_r over the rows x_r of X, as a k x k x k array (blocked GEMMs)."""
    n, k = X.shape
    out = np.zeros((k * k, k))
    nb = max(1, BLOCK_DOUBLES // (k * k))
    for s in range(0, n, nb):
        Xb = X[s:s + nb]
        K = (Xb[:, :, None] * Xb[:, None, :]).reshape(len(Xb), k * k)
        out += K.T @ (weights[s:s + nb, None] * Xb)
    return out.reshape(k, k, k)


def pair_outer(W, Z):
    """G(a,b,c) = Σ_i W(i,a) W(i,b) Z(i,c) (rows i of W and Z)."""
    d, k = W.shape
    out = np.zeros((k * k, Z.shape[1]))
    nb = max(1, BLOCK_DOUBLES // (k * k))
    for s in range(0, d, nb):
        Wb = W[s:s + nb]
        K = (Wb[:, :, None] * Wb[:, None, :]).reshape(len(Wb), k * k)
        out += K.T @ Z[s:s + nb]
    return out.reshape(k, k, Z.shape[1])


def place3(G):
    """The three placements of a tensor symmetric in its first two modes: G(a,b,c) + G(a,c,b) + G(b,c,a)."""
    return G + G.transpose(0, 2, 1) + G.transpose(2, 0, 1)


def whitened_tensor(C, l, a0, W):
    """T̂ = M̂3(W,W,W) from the documents: every SPEC §3 term mapped through W.

    With y_n = Wᵀc_n, w_i = row i of W, m_n = y_n/l_n, s = Σ_n m_n:
      (1/N)Σ M̃3ⁿ  -> Σ e_n/N y^⊗3 − place3(Σ_i w_i⊗w_i⊗z_i) + (2/N)Σ_i g_i w_i^⊗3,
                     e_n = 1/(l(l−1)(l−2)), z_i = (1/N)Σ_n e_n c_n(i) y_n, g_i = Σ_n e_n c_n(i)
      B-terms     -> β2 [place3(S2(W)⊗s) − 3 Σ f_n y^⊗3 + place3(Σ_i w_i⊗w_i⊗z'_i)],
                     f_n = 1/(l²(l−1)), z'_i = Σ_n f_n c_n(i) y_n, S2(W) = Σ_n (y yᵀ − D_n)/(l(l−1))
      P3          -> γ3 [s^⊗3 − place3(A1⊗s) + 2 Σ_n y^⊗3/l³], A1 = Σ_n m mᵀ
    """
    N = C.shape[0]
    _, b, c = constants(a0)
    beta2 = b / (N * (N - 1))
    gamma3 = c / (N * (N - 1) * (N - 2))
    Y = np.asarray(C @ W)  # N x k
    e = 1.0 / (l * (l - 1) * (l - 2))
    f = 1.0 / (l * l * (l - 1))
    pair = 1.0 / (l * (l - 1))
    s = Y.T @ (1.0 / l)
    S2w = Y.T @ (pair[:, None] * Y) - W.T @ ((C.T @ pair)[:, None] * W)
    A1 = Y.T @ ((1.0 / (l * l))[:, None] * Y)
    # Σ_n h_n y^⊗3 with all three document-level weights folded together.
    h = e / N - 3 * beta2 * f + 2 * gamma3 / l ** 3
    T = gram3(Y, h)
    # Σ_i w_i⊗w_i⊗(z-terms) in three placements, and the diagonal Σ_i g_i w_i^⊗3 in one GEMM.
    Z = np.asarray(C.T @ ((-e / N + beta2 * f)[:, None] * Y))
    gW = (2.0 / N) * np.asarray(C.T @ e)[:, None] * W
    G = pair_outer(W, np.hstack([Z, gW]))
    k = W.shape[1]
    T += place3(G[:, :, :k]) + G[:, :, k:]
    T += place3(np.einsum("ab,c->abc", beta2 * S2w - gamma3 * A1, s))
    T += gamma3 * np.einsum("a,b,c->abc", s, s, s)
    return T


def contract_twice(T, U):
    """Columns T(I, u, u) for the columns u of U (k x L)."""
    return np.einsum("ijl,jL,lL->iL", T, U, U, optimize=True)


def robust_power_method(T, rng, restarts=0, max_iter=100, tol=1e-10):
    k = T.shape[0]
    L = restarts if restarts > 0 else max(10, 2 * int(math.ceil(k * math.log(max(k, 1)))))
    T = T.copy()
    lam = np.zeros(k)
    V = np.zeros((k, k))
    iterations = 0
    converged = True
    for comp in range(k):
        U = rng.standard_normal((k, L))
        U /= np.linalg.norm(U, axis=0)
        for _ in range(max_iter):
            nxt = contract_twice(T, U)
            norms = np.linalg.norm(nxt, axis=0)
            ok = (norms > 0) & np.isfinite(norms)
            nxt[:, ok] /= norms[ok]
            nxt[:, ~ok] = U[:, ~ok]
            change = np.linalg.norm(nxt - U, axis=0).max()
            U = nxt
            iterations += 1
            if change < tol:
                break
        best = int(np.argmax(np.sum(U * contract_twice(T, U), axis=0)))
        u = U[:, best].copy()
        settled = False
        for _ in range(max_iter):
            nxt = np.einsum("ijl,j,l->i", T, u, u)
            n = np.linalg.norm(nxt)
            if not (n > 0 and np.isfinite(n)):
                break
            nxt /= n
            change = np.linalg.norm(nxt - u)
            u = nxt
            iterations += 1
            if change < tol:
                settled = True
                break
        converged = converged and settled
        lam[comp] = np.einsum("ijl,i,j,l->", T, u, u, u)
        V[:, comp] = u
        T -= lam[comp] * np.einsum("i,j,l->ijl", u, u, u)
    neg = lam < 0
    lam[neg] *= -1
    V[:, neg] *= -1
    order = np.argsort(-lam, kind="stable")
    return lam[order], V[:, order], iterations, converged


def project_simplex(v):
    """Euclidean projection onto the probability simplex (Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, len(v) + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def fit(C, l, k, a0, seed):
    timings = {}
    t0 = time.perf_counter()
    sigma, U, eig_method = top_eigenpairs(C, l, a0, k)
    t1 = time.perf_counter()
    timings["m2_eigen"] = (t1 - t0) * 1e3
    if not sigma[k - 1] > 0:
        raise RuntimeError("sigma_k = %g <= 0: whitening undefined" % sigma[k - 1])
    W = U / np.sqrt(sigma[:k])
    unwhitening = U * np.sqrt(sigma[:k])
    T = whitened_tensor(C, l, a0, W)
    t2 = time.perf_counter()
    timings["tensor"] = (t2 - t1) * 1e3
    lam, V, iterations, converged = robust_power_method(T, np.random.default_rng(seed))
    t3 = time.perf_counter()
    timings["decompose"] = (t3 - t2) * 1e3
    alpha = 4 * a0 * (a0 + 1) / ((a0 + 2) ** 2 * lam ** 2)
    mu = unwhitening @ V * ((a0 + 2) / 2 * lam)
    topics = np.column_stack([project_simplex(mu[:, i]) for i in range(k)])
    timings["unwhiten_project"] = (time.perf_counter() - t3) * 1e3
    return dict(alpha=alpha, topics=topics, sigma=sigma, lam=lam, iterations=iterations, converged=converged,
                eig_method=eig_method, timings=timings, T=T)


def compare_topics(ref_topics, ref_alpha, est_topics, est_alpha):
    """SPEC §12: Hungarian matching on l2, mean l2 / l1 / alpha errors."""
    D = np.linalg.norm(ref_topics[:, :, None] - est_topics[:, None, :], axis=0)
    rows, cols = linear_sum_assignment(D)
    diff = ref_topics[:, rows] - est_topics[:, cols]
    out = dict(l2_mean=float(np.linalg.norm(diff, axis=0).mean()), l1_mean=float(np.abs(diff).sum(axis=0).mean()))
    out["alpha"] = None if est_alpha is None else float(np.abs(ref_alpha[rows] - est_alpha[cols]).mean())
    return out, cols


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", type=int, required=True)
    p.add_argument("--truth")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--alpha0", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dump-tensor", help="write T̂ (k^3 values, row-major) to this .npy file")
    args = p.parse_args()

    t0 = time.perf_counter()
    C, l, dropped = read_uci(args.corpus)
    load_ms = (time.perf_counter() - t0) * 1e3
    times, cpu, stages, model = [], [], {}, None
    for _ in range(args.repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        model = fit(C, l, args.topics, args.alpha0, args.seed)
        times.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.process_time() - cpu_start) * 1e3)
        for name, ms in model["timings"].items():
            stages.setdefault(name, []).append(ms)
    out = dict(tool="numpy_spectral", corpus=args.corpus, docs=C.shape[0], vocab=C.shape[1], nnz=int(C.nnz),
               dropped_docs=dropped, topics=args.topics, repeats=args.repeats, load_ms=round(load_ms, 3),
               eigen_method=model["eig_method"],
               fit_ms=dict(median=float(np.median(times)), min=min(times), max=max(times)),
               cpu_ms=dict(median=float(np.median(cpu)), min=min(cpu)),
               stages_ms={k: float(np.median(v)) for k, v in stages.items()},
               peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
               decomposer_iterations=model["iterations"], decomposer_converged=model["converged"],
               sigma_k=float(model["sigma"][args.topics - 1]), numpy=np.__version__)
    if args.truth:
        ref_alpha, ref_topics = read_truth(args.truth)
        out["error"], _ = compare_topics(ref_topics, ref_alpha, model["topics"], model["alpha"])
    if args.dump_tensor:
        np.save(args.dump_tensor, model["T"])
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
