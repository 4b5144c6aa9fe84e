FROM python:3.11-slim
WORKDIR /srv/hexmoot
COPY pyproject.toml README.md alembic.ini ./
COPY games games
COPY app app
COPY migrations migrations
COPY templates templates
COPY static static
RUN pip install --no-cache-dir .
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
CMD ["sh", "-c", "alembic upgrade head && uvicorn app.main:create_app --factory --host $HOST --port $PORT"]
