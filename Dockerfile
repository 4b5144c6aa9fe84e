FROM python:3.11-slim
WORKDIR /srv/hexmoot
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
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
# The production configuration of uvicorn (app/serve.py), read from the environment's settings.
CMD ["sh", "-c", "alembic upgrade head && exec python -m app.serve"]
