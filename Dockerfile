FROM python:3.11-slim
WORKDIR /srv/hexmoot
# Debian's headless Chromium draws the pictures shared links show (app/runtime/cards.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium-headless-shell fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
# The locked versions with their hashes (as `make run` installs them), then the project itself.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md alembic.ini ./
COPY games games
COPY app app
COPY migrations migrations
COPY templates templates
COPY static static
RUN pip install --no-cache-dir --no-deps .
# Every service of this image runs as an unprivileged user of its own.
RUN useradd --system --user-group --uid 10001 --no-create-home --home-dir /nonexistent hexmoot \
    && mkdir /srv/public /srv/dumps /srv/cards \
    && chown hexmoot:hexmoot /srv/public /srv/dumps /srv/cards
USER hexmoot
# The processed copy of static/ that nginx serves, as the app serves it (minified, and under each
# file's hash). compose.yaml's `static` service writes it again into nginx's volume at every `up`,
# over the previous deploy's; a new volume starts out as this copy, owned by this user.
RUN python -m app.static_files build /srv/public
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
# The production configuration of uvicorn (app/serve.py), read from the environment's settings.
# No migrations here: with several app processes, compose.yaml's one-shot `migrate` service runs
# them once, before any of them starts.
CMD ["python", "-m", "app.serve"]
