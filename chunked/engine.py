"""Where chunks run: Dask distributed (a running cluster or a local one),
or nowhere but here, one after another (serial).

Both run the same encode function on the same jobs, so the streams they
return are the same bytes.  The engine decides placement and retries; the
driver decides what a result means.
"""

import os
import time
import uuid

from . import encode


class EngineError(Exception):
    pass


class Serial:
    name = "serial"

    def probe(self, fn, *args):
        return {"local": fn(*args)}

    def gpu_resources(self, share):
        return None

    def run(self, fn, jobs, on_done, resources=None):
        for job in jobs:
            on_done(job, fn(job))

    def close(self):
        pass


class Dask:
    name = "dask"

    def __init__(self, scheduler=None, workers=None, wait_s=60, threads=1):
        try:
            import cloudpickle
            from distributed import Client, LocalCluster
        except ImportError:
            raise EngineError("Dask distributed is not installed (pip install -r chunked/requirements.txt), "
                              "or run with --serial")
        # The worker-side module travels by value with each task and probe,
        # so workers need no copy of this package (only Dask, x264 and the
        # input).
        cloudpickle.register_pickle_by_value(encode)
        self.cluster = None
        try:
            if scheduler:
                kw = {"scheduler_file": scheduler} if os.path.isfile(scheduler) else {"address": scheduler}
                self.client = Client(timeout=wait_s, **kw)
            else:
                # one chunk per worker at a time, as many as x264's threads fill the cores
                workers = workers or max(1, (os.cpu_count() or 1) // threads)
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                            processes=True, dashboard_address=None)
                self.client = Client(self.cluster)
            self.client.wait_for_workers(workers or 1, timeout=wait_s)
        except (OSError, TimeoutError) as e:
            self.close()
            raise EngineError(f"no Dask cluster at {scheduler} with {workers or 1} worker(s) "
                              f"within {wait_s} s: {e}" if scheduler else f"cannot start a local cluster: {e}")
        self.wait_s = wait_s

    def workers(self):
        return self.client.scheduler_info()["workers"]

    def probe(self, fn, *args):
        # on every worker at once; a worker that leaves meanwhile fails the
        # broadcast, and the next try asks those that are left
        for _ in range(3):
            try:
                return self.client.run(fn, *args)
            except OSError as e:   # distributed's CommClosedError is one
                last = e
                time.sleep(1)
        raise EngineError(f"could not reach the workers: {last}")

    def gpu_resources(self, share):
        """{'GPU': share} when some worker declares GPU resources (dask worker
        --resources GPU=N), else None: then chunks run anywhere, and x264's
        --gpu-me finds a GPU or encodes with its own search."""
        declared = [w.get("resources", {}).get("GPU", 0) for w in self.workers().values()]
        if not share or not any(declared):
            return None
        if share > max(declared):
            raise EngineError(f"--gpu-per-chunk {share} is more than any worker has (GPU={max(declared)})")
        return {"GPU": share}

    def run(self, fn, jobs, on_done, resources=None):
        from distributed import KilledWorker, wait
        run_id = uuid.uuid4().hex[:8]

        # A nested function cannot be pickled by name, so Dask hands it to
        # cloudpickle, which carries fn by value (registered above): neither
        # the scheduler nor the workers need this package installed.
        def shipped(job):
            return fn(job)

        futures = {self.client.submit(shipped, job, key=f"chunk-{job['index']:05d}-{run_id}", pure=False,
                                      resources=resources, retries=0): job for job in jobs}
        pending, lonely_since = set(futures), None
        try:
            while pending:
                try:
                    done, pending = wait(pending, timeout=2, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = ()
                for f in done:
                    job = futures[f]
                    if f.status == "finished":
                        on_done(job, f.result())
                        continue
                    err = f.exception() if f.status == "error" else None
                    if isinstance(err, KilledWorker):
                        raise EngineError(f"chunk {job['index']}: every worker that ran it died "
                                          "(Dask gives a task up after distributed.scheduler.allowed-failures deaths)")
                    raise EngineError(f"chunk {job['index']}: the engine lost it ({f.status}: {err!r})")
                # A killed worker's chunk goes back to the others; with no
                # worker left it would wait for ever, so give up after wait_s.
                if self.workers():
                    lonely_since = None
                elif lonely_since is None:
                    lonely_since = time.time()
                elif time.time() - lonely_since > self.wait_s:
                    raise EngineError(f"no worker left for {self.wait_s} s with {len(pending)} chunk(s) to go")
        finally:
            if pending:
                self.client.cancel(list(pending))

    def close(self):
        for c in (getattr(self, "client", None), self.cluster):
            if c is not None:
                try:
                    c.close()
                except Exception:   # closing is best effort: the job's verdict is already made
                    pass
