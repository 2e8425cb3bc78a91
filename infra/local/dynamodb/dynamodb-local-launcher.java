import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.EventsHandler;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.AbstractLocalDynamoDBServerHandler;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;
import software.amazon.dynamodb.services.local.server.DynamoDBRequestHandler;
import software.amazon.dynamodb.services.local.shared.access.LocalDBAccess;

/**
 * DynamoDB Local, started as its ServerRunner does, on loopback: it has no option for the
 * address, so the Jetty connector's host is set between building the server and starting it.
 * It answers only loopback names: it takes any signature, so a page rebinding its own name to
 * 127.0.0.1 (DNS rebinding) would read every record. It answers once its SQLite queue has run
 * the jobs a request left on it: it queues a transaction's COMMIT without waiting for it
 * (SQLiteDBAccess.commitTransaction), and a JVM killed just after such an answer lost the write.
 */
final class DynamoDbLocalLauncher {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Server jetty = (Server) fieldOf(proxy, Server.class);
    Connector[] connectors = jetty.getConnectors();
    // Another shape could leave a listener on every interface: stop instead.
    if (connectors.length != 1 || !(connectors[0] instanceof AbstractNetworkConnector connector)) {
      fail("DynamoDB Local's server is not built as expected: " + Arrays.toString(connectors));
      return;
    }
    connector.setHost("127.0.0.1");
    Handler dynamoDb = jetty.getHandler();
    if (dynamoDb == null) fail("DynamoDB Local's server has no handler to guard");
    Object server = fieldOf(proxy, AbstractLocalDynamoDBServerHandler.class);
    databases = (Map<?, ?>) fieldOf(fieldOf(server, DynamoDBRequestHandler.class), Map.class);
    jetty.setHandler(new LoopbackNamesOnly(new EventsHandler(dynamoDb) {
      @Override
      protected void onResponseBegin(Request request, int status, HttpFields headers) {
        awaitQueuedWork();
      }
    }));
    try {
      proxy.start();
    } catch (Exception error) {
      // A taken port ends here ("Address already in use"): the caller reads it to choose again.
      error.printStackTrace();
      System.exit(1);
    }
    if (!jetty.isStarted()) {
      // DynamoDB Local stops its server on some failures without ending the JVM.
      fail("DynamoDB Local did not start on 127.0.0.1:" + connector.getPort());
    }
  }

  private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "::1");
  /** DynamoDB Local's databases, by key (one with -sharedDb), each made at its first request. */
  private static Map<?, ?> databases;

  /** Refuses a request whose Host is not a loopback name: 403, in DynamoDB's own JSON. */
  private static final class LoopbackNamesOnly extends Handler.Wrapper {
    LoopbackNamesOnly(Handler dynamoDb) {
      super(dynamoDb);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      String name = hostNameOf(request.getHeaders().get(HttpHeader.HOST));
      if (name != null && LOOPBACK_NAMES.contains(name)) {
        return super.handle(request, response, callback);
      }
      response.setStatus(403);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-amz-json-1.0");
      Content.Sink.write(
          response,
          true,
          "{\"__type\":\"com.amazonaws.dynamodb.v20120810#AccessDeniedException\","
              + "\"Message\":\"DynamoDB Local answers only requests addressed to localhost,"
              + " 127.0.0.1 or [::1]\"}",
          callback);
      return true;
    }

    /** The name in a Host header, without its port or an IPv6 address's brackets. */
    private static String hostNameOf(String header) {
      if (header == null) return null;
      String host = header.trim().toLowerCase(Locale.ROOT);
      if (host.startsWith("[")) {
        int end = host.indexOf(']');
        return end < 0 ? null : host.substring(1, end);
      }
      int colon = host.indexOf(':');
      return colon < 0 ? host : host.substring(0, colon);
    }
  }

  /**
   * Returns once each database's SQLite queue has run the jobs queued before this call. The
   * request's own database was made or found under the lock that makes it seen here.
   */
  private static void awaitQueuedWork() {
    try {
      for (Object database : databases.values()) {
        Object access = fieldOf(database, LocalDBAccess.class);
        // One thread runs a queue's jobs in order: this one runs after a queued COMMIT.
        ((SQLiteQueue) fieldOf(access, SQLiteQueue.class)).execute(new SQLiteJob<Void>() {
          @Override
          protected Void job(SQLiteConnection connection) {
            return null;
          }
        }).complete();
      }
    } catch (IllegalAccessException | RuntimeException error) {
      fail("DynamoDB Local's databases are not built as expected: " + error);
    }
  }

  /** Its private field of `type` in `owner`: DynamoDB Local offers no other way to reach it. */
  private static Object fieldOf(Object owner, Class<?> type) throws IllegalAccessException {
    for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (type.isAssignableFrom(field.getType()) && !Modifier.isStatic(field.getModifiers())) {
          field.setAccessible(true);
          return field.get(owner);
        }
      }
    }
    throw new IllegalStateException("DynamoDB Local holds no " + type.getName() + " in " + owner);
  }

  private static void fail(String message) {
    System.err.println(message);
    System.exit(1);
  }
}
