# diplomat serve on all interfaces, with its SQLite database in a volume.
#   docker build -t diplomat .
#   docker run -p 16713:16713 -p 8080:8080 -v diplomat-data:/data diplomat
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY grammar grammar
COPY protocol protocol
COPY server server
COPY mapdraw mapdraw
COPY tournament tournament
COPY web web
COPY cli cli
COPY bots bots
COPY replay replay
COPY dipnet dipnet
COPY diplomat diplomat
RUN pip install --no-cache-dir . && useradd --create-home diplomat && mkdir /data && chown diplomat /data
USER diplomat
VOLUME /data
EXPOSE 16713 8080
ENTRYPOINT ["diplomat"]
CMD ["serve", "--host", "0.0.0.0", "--port", "16713", "--web-port", "8080", "--db", "/data/diplomat.sqlite"]
