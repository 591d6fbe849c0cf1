.PHONY: run run-cluster test e2e lint eval-routing refit-routing bench

run:   ## run the dashboard on the embedded default (SQLite in ./data)
	bash scripts/run.sh

run-cluster:  ## several backend workers behind nginx on PostgreSQL + Redis, for trying the scale-out (docs/DEPLOY.md)
	bash scripts/run-cluster.sh

test:  ## run the whole test suite (installs what it needs first)
	bash scripts/test.sh

e2e:  ## the browser flows alone (ARGS='-k ...' selects; HEADED=1; E2E_BASE_URL=... runs them against a running dashboard)
	bash scripts/e2e.sh $(ARGS)

lint:  ## ruff's lint rules and formatting, mypy --strict on the domain (make test runs them first)
	bash scripts/lint.sh

eval-routing:  ## routing accuracy on the labeled set, against a keyword baseline; publish-or-not on the noise corpora
	bash scripts/bootstrap.sh && .venv/bin/python bench/routing_eval.py && .venv/bin/python bench/noise_eval.py

refit-routing:  ## train the topic adapter and refit calibration.json on the fitting sets (PyTorch 2.13 CPU into .tools/torch, bench only)
	bash scripts/bootstrap.sh --test
	test -d .tools/torch/torch || .venv/bin/pip install --quiet --no-deps --target .tools/torch torch==2.13.0
	PYTHONPATH=.tools/torch .venv/bin/python bench/train_adapter.py --write
	.venv/bin/python -c "from topic_dashboard.routing.e5_runtime import write_graph; print(write_graph())"
	.venv/bin/python bench/fit_routing.py

bench:  ## benchmarks (ratios against baselines measured in the same run)
	bash scripts/bench.sh
