#!/usr/bin/python3
"""scikit-learn's variational LDA on the same UCI corpus, timed and scored like the spectral fit.

    sklearn_lda.py --corpus DIR --topics K [--truth FILE] [--alpha0 A] [--max-iter M]
                   [--method batch|online] [--jobs J]

Fits LatentDirichletAllocation(n_components=K, doc_topic_prior=alpha0/K, random_state=0) on the
counts (documents with fewer than 3 tokens dropped, as the spectral fit does), normalises the
rows of components_ into topic-word distributions and reports the fit time and the same matched
l1 / l2 errors against truth.json (Hungarian matching on l2). sklearn does not estimate alpha
(the prior is fixed), so no alpha error is reported. Prints one JSON line.
"""
import argparse
import json
import os
import resource
import sys
import time

import numpy as np
import sklearn
from sklearn.decomposition import LatentDirichletAllocation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_spectral import compare_topics, read_truth, read_uci  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", type=int, required=True)
    p.add_argument("--truth")
    p.add_argument("--alpha0", type=float, default=1.0)
    p.add_argument("--max-iter", type=int, default=10)
    p.add_argument("--method", choices=["batch", "online"], default="online")
    p.add_argument("--batch-size", type=int, default=2048, help="mini-batch size of the online method")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--learning-offset", type=float, default=10.0, help="online tau0 (sklearn's default 10)")
    p.add_argument("--model-out", help="write alpha and the normalised topics as a truth.json-style file (issue 10)")
    p.add_argument("--test", help="a UCI corpus folder: also report sklearn's own perplexity() on it")
    args = p.parse_args()

    C, _, dropped = read_uci(args.corpus)
    k = args.topics
    lda = LatentDirichletAllocation(n_components=k, doc_topic_prior=args.alpha0 / k, learning_method=args.method,
                                    batch_size=args.batch_size, max_iter=args.max_iter, random_state=0,
                                    learning_offset=args.learning_offset,
                                    n_jobs=args.jobs)
    start, cpu_start = time.perf_counter(), time.process_time()
    lda.fit(C)
    fit_ms = (time.perf_counter() - start) * 1e3
    cpu_ms = (time.process_time() - cpu_start) * 1e3
    topics = (lda.components_ / lda.components_.sum(axis=1, keepdims=True)).T  # d x k
    out = dict(tool="sklearn_lda", corpus=args.corpus, docs=C.shape[0], vocab=C.shape[1], nnz=int(C.nnz),
               dropped_docs=dropped, topics=k, method=args.method, max_iter=args.max_iter,
               batch_size=args.batch_size if args.method == "online" else None, n_jobs=args.jobs,
               iterations_run=int(lda.n_iter_), fit_ms=dict(median=fit_ms, min=fit_ms, max=fit_ms),
               cpu_ms=dict(median=cpu_ms, min=cpu_ms),
               peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
               sklearn=sklearn.__version__)
    if args.truth:
        ref_alpha, ref_topics = read_truth(args.truth)
        out["error"], _ = compare_topics(ref_topics, ref_alpha, topics, None)
    if args.model_out:
        with open(args.model_out, "w") as f:
            json.dump(dict(alpha=[args.alpha0 / k] * k, topics=topics.T.tolist()), f)
    if args.test:
        T, _, _ = read_uci(args.test)
        out["sklearn_perplexity_test"] = float(lda.perplexity(T))
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
