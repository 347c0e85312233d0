# The same set-up as on a developer machine: `make setup` does every install step.
FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends make gcc nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/tokenprism
COPY . .
RUN make setup
ENV TOKENPRISM_DATA_DIR=/data
VOLUME /data
EXPOSE 8000
CMD [".venv/bin/tokenprism", "serve", "--host", "0.0.0.0", "--port", "8000"]
